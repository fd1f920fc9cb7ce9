/*
 * queueserv_json.c - a string as JSON, for every part of "status -j"
 * (queueserv_status.c, queueserv_cluster.c), escaped by json_out.c.
 */
#include <stdio.h>

#include "json_out.h"
#include "queueserv_status.h"

/* queueserv_json_str - a JSON string (quotes, backslashes, controls) */
void
queueserv_json_str(FILE *fp, const char *s)
{
	json_out_str(fp, s);
}
