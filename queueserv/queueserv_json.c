/*
 * queueserv_json.c - a string as JSON, for every part of "status -j"
 * (queueserv_status.c, queueserv_cluster.c).
 */
#include <stdio.h>

#include "queueserv_status.h"

/* queueserv_json_str - a JSON string (quotes, backslashes, controls) */
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
