/*
 * bounce_parse.h - the failed addresses a delivery report names
 * (bounce_parse.c): VERP, then the report's own formats
 * (bounce_read.h); and why each failed (bounce_class.h).
 */
#ifndef MJQ_BOUNCE_PARSE_H
#define MJQ_BOUNCE_PARSE_H

#include <stddef.h>

#include "bounce_found.h"

/* bounce_parse - what a message to list's owner at domain (text, len)
 * says failed */
void bounce_parse(const char *domain, const char *list, const char *text,
    size_t len, struct bounce_found *bf);

/* bounce_report_looks - 1 when the message is a delivery report by its
 * type (multipart/report; report-type=delivery-status) or its author
 * (MAILER-DAEMON, postmaster), whatever its envelope sender */
int bounce_report_looks(const char *text, size_t len);

#endif
