/*
 * json_out.h - JSON strings written to a stdio stream (json_out.c), with
 * no mail knowledge.
 */
#ifndef MJQ_JSON_OUT_H
#define MJQ_JSON_OUT_H

#include <stdio.h>

/* json_out_str - s as a JSON string (RFC 8259 7), quotes included, in
 * ASCII: what is not printable ASCII written as \u escapes, UTF-8
 * decoded to them (a byte that is not UTF-8: U+FFFD) */
void json_out_str(FILE *fp, const char *s);

#endif
