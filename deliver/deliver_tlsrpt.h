/*
 * deliver_tlsrpt.h - TLS-RPT (RFC 8460) records of the smtp transport's
 * TLS sessions and policy failures (deliver_tlsrpt.c), which the
 * runner's daily report (listfn/tlsrpt_sweep.c) counts.
 */
#ifndef MJQ_DELIVER_TLSRPT_H
#define MJQ_DELIVER_TLSRPT_H

#include <time.h>

#include "deliver_sts.h"
#include "smtp.h"

/* deliver_tlsrpt_open - record sessions into spool's state, on the day
 * the clock (the list functions', which a test build can move) says;
 * before the delivery threads start */
void deliver_tlsrpt_open(const char *spool, time_t (*clock)(void));
/* deliver_tlsrpt_close - record no more */
void deliver_tlsrpt_close(void);

/* What a TLS session to one MX host of a policy domain ran under. */
struct deliver_tlsrpt_session {
	const char *domain;		      /* the policy domain */
	const struct deliver_sts_policy *sts; /* MTA-STS, or mode none */
	const struct mx_tlsa_list *tlsa;      /* DANE records, or NULL */
	const struct mx_target *mx;	      /* host name and address */
	const struct smtp_session *s;	      /* after smtp_tls_start */
};

/* deliver_tlsrpt_note - a session's result, after smtp_tls_start */
void deliver_tlsrpt_note(const struct deliver_tlsrpt_session *);
/* deliver_tlsrpt_refused - host, which domain's enforce policy p does
 * not list, is not tried: a validation-failure */
void deliver_tlsrpt_refused(
    const char *domain, const struct mta_sts_policy *p, const char *host);
/* deliver_tlsrpt_fetch_failed - no policy of domain was had: result is
 * sts-policy-fetch-error, sts-policy-invalid or sts-webpki-invalid, why
 * the failure reason */
void deliver_tlsrpt_fetch_failed(
    const char *domain, const char *result, const char *why);

#endif
