/*
 * bounce_parse.h - the failed addresses a delivery report names
 * (bounce_parse.c): VERP, then an RFC 3464 report, then the common
 * free-text forms; and why each failed (bounce_class.h).
 */
#ifndef MJQ_BOUNCE_PARSE_H
#define MJQ_BOUNCE_PARSE_H

#include <stddef.h>

#include "bounce_class.h"
#include "names.h"

#define BOUNCE_ADDRS_MAX 20
#define BOUNCE_PROBE_TOKEN_MAX 32

struct bounce_found {
	char addr[BOUNCE_ADDRS_MAX][NAME_ADDR_MAX + 1];
	enum bounce_class class[BOUNCE_ADDRS_MAX]; /* why addr[i] failed */
	size_t n;
	size_t more;   /* failed addresses past BOUNCE_ADDRS_MAX */
	int is_bounce; /* it looks like a delivery report */
	int delayed;   /* a warning only: nothing failed */
	char probe[BOUNCE_PROBE_TOKEN_MAX + 1]; /* to <list>-owner+probe-
						   <token>: the bounce of a
						   probe (addr the failed
						   ones it names), or
						   (is_bounce 0) an answer
						   to it */
};

/* bounce_parse - what a message to list's owner at domain (text, len)
 * says failed */
void bounce_parse(const char *domain, const char *list, const char *text,
    size_t len, struct bounce_found *bf);

/* bounce_report_looks - 1 when the message is a delivery report by its
 * type (multipart/report; report-type=delivery-status) or its author
 * (MAILER-DAEMON, postmaster), whatever its envelope sender */
int bounce_report_looks(const char *text, size_t len);

#endif
