/*
 * tlsrpt_report.h - one TLS-RPT report (RFC 8460 4.4, 5.3) of a policy
 * domain's day: the JSON and the message that carries it
 * (tlsrpt_report.c).
 */
#ifndef MJQ_TLSRPT_REPORT_H
#define MJQ_TLSRPT_REPORT_H

#include <stddef.h>
#include <time.h>

#include "names.h"

/* One session record (spool_tlsrpt.h's fields); records of a report
 * come sorted, so that equal ones are together. */
struct tlsrpt_rec {
	const char *line; /* the whole record (to sort), then its domain */
	const char *domain, *type, *policy, *result, *mx, *rip, *sip;
	const char *reason; /* failure-reason-code; "" none */
};

/* What a report is about and who makes it. */
struct tlsrpt_report {
	char day[16];		  /* YYYY-MM-DD, UTC */
	time_t start;		  /* its 00:00:00Z */
	const char *domain;	  /* the policy domain */
	const char *from;	  /* [tlsrpt] from */
	const char *submitter;	  /* the domain of from */
	const char *organization; /* organization-name */
	const char *contact;	  /* contact-info */
	char id[NAME_DOMAIN_MAX * 2 +
		32]; /* report-id: day, domain, submitter */
};

/* tlsrpt_report_init - r for domain's records of day */
int tlsrpt_report_init(struct tlsrpt_report *r, const char *day,
    const char *domain, const char *from, const char *organization,
    const char *contact);
/* tlsrpt_report_message - the message carrying it to one address, made
 * at now (malloc'd); 0 or -1 */
int tlsrpt_report_message(const struct tlsrpt_report *r, const char *to,
    const struct tlsrpt_rec *v, size_t n, time_t now, char **text, size_t *len);

#endif
