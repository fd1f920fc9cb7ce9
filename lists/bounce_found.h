/*
 * bounce_found.h - the failed addresses a report names, each with its
 * class and the evidence that decided it (bounce_found.c); what every
 * reader of a report format fills in.
 */
#ifndef MJQ_BOUNCE_FOUND_H
#define MJQ_BOUNCE_FOUND_H

#include <stddef.h>

#include "bounce_class.h"
#include "names.h"

#define BOUNCE_ADDRS_MAX 20
#define BOUNCE_PROBE_TOKEN_MAX 32
#define BOUNCE_EVIDENCE_MAX 160

struct bounce_found {
	char addr[BOUNCE_ADDRS_MAX][NAME_ADDR_MAX + 1];
	enum bounce_class class[BOUNCE_ADDRS_MAX]; /* why addr[i] failed */
	const char *reader[BOUNCE_ADDRS_MAX]; /* the format that named it */
	char why[BOUNCE_ADDRS_MAX][BOUNCE_WHY_MAX]; /* the deciding rule */
	char evidence[BOUNCE_ADDRS_MAX][BOUNCE_EVIDENCE_MAX]; /* its text */
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

/* bounce_found_add - a failed address (addr, alen, angle brackets and
 * blanks around it allowed) that reader found, judged by its Status
 * (status, NULL or "" when none) and its reply or prose (diag, dlen);
 * kept once, with its strongest class.  Its index, or -1 (no address,
 * or past the bound: counted in more). */
int bounce_found_add(struct bounce_found *bf, const char *reader,
    const char *addr, size_t alen, const char *status, const char *diag,
    size_t dlen);

/* bounce_found_judge - judge the address at index i again, by (diag,
 * dlen) and status, keeping the stronger class */
void bounce_found_judge(struct bounce_found *bf, int i, const char *status,
    const char *diag, size_t dlen);

#endif
