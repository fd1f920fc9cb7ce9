/*
 * queueserv_json.c - what the JSON forms of status share: a string with
 * its quotes, backslashes and control characters escaped.
 */
#include <stdio.h>

#include "queueserv_status.h"

/* queueserv_json_str - a JSON string */
void
queueserv_json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(fp, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, fp);
	}
	fputc('"', fp);
}
