/*
 * queueserv_json.c - what the JSON forms of status share: a string with
 * its quotes, backslashes and control characters escaped (json_out.c).
 */
#include <stdio.h>

#include "json_out.h"
#include "queueserv_status.h"

/* queueserv_json_str - a JSON string */
void
queueserv_json_str(FILE *fp, const char *s)
{
	json_out_str(fp, s);
}
