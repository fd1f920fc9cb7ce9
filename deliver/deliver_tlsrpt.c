/*
 * deliver_tlsrpt.c - a record per TLS session of the smtp transport for
 * TLS-RPT (RFC 8460): the policy it ran under (an MTA-STS policy in
 * enforce or testing mode, DANE's TLSA records, or no policy), its
 * result type, the MX host, the receiving and the sending address;
 * appended to the day's file of the spool's state (spool_tlsrpt.c),
 * shared by every runner.  A session counts once, when its STARTTLS
 * (or the lack of it) is over: a session reused for more messages is
 * one session, as the RFC counts them.
 *
 * Only sessions to a recipient domain's MX hosts are recorded: a
 * "[host]" nexthop or a relayhost has no policy domain to report to,
 * and smtp_tls_security_level = none tries no TLS to report on.
 *
 * Policy failures that no session carries are recorded the same way,
 * one line per event, with the fields that are known (the others
 * empty) and a failure reason: a policy that could not be fetched,
 * was not a policy, or came from a host whose certificate failed (the
 * policy thread, deliver_sts.c: one line per fetch), and an MX host
 * an enforce policy refuses before any connection (deliver_tls.c: one
 * line per address not tried).  RFC 8460 4.3.1's
 * certificate-host-mismatch is about a certificate presented, and
 * none is; 4.3.3 says a failure outside the categories is
 * validation-failure with a failure-reason-code, so that is what an
 * MX outside the policy's patterns is, under enforce or testing.
 */
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "deliver_tlsrpt.h"
#include "log.h"
#include "spool_tlsrpt.h"

#define DELIVER_TLSRPT_POLICY_MAX 1400 /* a longer policy string is cut */
#define DELIVER_TLSRPT_REASON_MAX 200  /* a longer reason is cut */
#define DELIVER_TLSRPT_MX_MISMATCH "mx-host-not-in-sts-policy"

/* Set once by the runner before its delivery threads start. */
static const char *deliver_tlsrpt_spool;
static time_t (*deliver_tlsrpt_clock)(void);

/* deliver_tlsrpt_open - sessions are recorded from now on */
void
deliver_tlsrpt_open(const char *spool, time_t (*clock)(void))
{
	deliver_tlsrpt_spool = spool;
	deliver_tlsrpt_clock = clock;
}

/* deliver_tlsrpt_close - no more records */
void
deliver_tlsrpt_close(void)
{
	deliver_tlsrpt_spool = NULL;
}

/* deliver_tlsrpt_ip - the address of sa, "-" when none */
static void
deliver_tlsrpt_ip(const struct sockaddr_storage *ss, char *out, size_t len)
{
	const void *a = NULL;

	if (ss->ss_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)ss)->sin_addr;
	else if (ss->ss_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr;
	if (a == NULL ||
	    inet_ntop(ss->ss_family, a, out, (socklen_t)len) == NULL)
		(void)strlcpy(out, "-", len);
}

/* deliver_tlsrpt_sts - the policy string of an MTA-STS policy, its
 * lines joined by '|' */
static void
deliver_tlsrpt_sts(const struct mta_sts_policy *p, char *out, size_t len)
{
	size_t i, n;

	n = (size_t)snprintf(
	    out, len, "version: STSv1|mode: %s", mta_sts_mode_names[p->mode]);
	for (i = 0; i < p->nmx && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "|mx: %s", p->mx[i]);
	if (n < len)
		(void)snprintf(out + n, len - n, "|max_age: %ld", p->max_age);
}

/* deliver_tlsrpt_tlsa - the policy string of TLSA records: each one in
 * presentation form ("3 1 1 <hex>"), joined by '|' */
static void
deliver_tlsrpt_tlsa(const struct mx_tlsa_list *l, char *out, size_t len)
{
	size_t i, k, n = 0;

	out[0] = '\0';
	for (i = 0; i < l->n && n + 16 < len; i++) {
		n += (size_t)snprintf(out + n, len - n, "%s%u %u %u ",
		    i ? "|" : "", l->v[i].usage, l->v[i].selector,
		    l->v[i].mtype);
		for (k = 0; k < l->v[i].len && n + 3 < len; k++)
			n += (size_t)snprintf(
			    out + n, len - n, "%02x", l->v[i].data[k]);
	}
}

/* deliver_tlsrpt_policy - the type and string of the policy t ran
 * under; the result it had (NULL: success), *reason set for an MX host
 * the MTA-STS policy does not list */
static const char *
deliver_tlsrpt_policy(const struct deliver_tlsrpt_session *t, const char **type,
    char *pol, size_t len, const char **reason)
{
	const struct smtp_session *s = t->s;

	pol[0] = '\0';
	*reason = "";
	if (t->tlsa != NULL && t->tlsa->n > 0) {
		*type = "tlsa";
		deliver_tlsrpt_tlsa(t->tlsa, pol, len);
	} else if (t->sts->pol.mode == MTA_STS_ENFORCE ||
		   t->sts->pol.mode == MTA_STS_TESTING) {
		*type = "sts";
		deliver_tlsrpt_sts(&t->sts->pol, pol, len);
		if (!mta_sts_mx_allowed(&t->sts->pol, t->mx->host)) {
			*reason = DELIVER_TLSRPT_MX_MISMATCH; /* testing */
			return "validation-failure";
		}
	} else {
		/* No policy: any TLS is a success. */
		*type = "no-policy-found";
		if (s->tls != NULL && s->tls_state != SMTP_TLS_OFF)
			return NULL;
	}
	return tlsrpt_result(s);
}

/* deliver_tlsrpt_write - append one record; "" for a field not known,
 * the reason made one line of tab-free text */
static void
deliver_tlsrpt_write(const char *domain, const char *type, const char *pol,
    const char *result, const char *mx, const char *rip, const char *sip,
    const char *reason)
{
	char line[SPOOL_TLSRPT_LINE_MAX], why[DELIVER_TLSRPT_REASON_MAX];
	size_t i;
	int n;

	if (deliver_tlsrpt_spool == NULL)
		return;
	(void)strlcpy(why, reason, sizeof(why));
	for (i = 0; why[i] != '\0'; i++)
		if (why[i] == '\t' || why[i] == '\r' || why[i] == '\n')
			why[i] = ' ';
	n = snprintf(line, sizeof(line), "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
	    domain, type, pol, result, mx, rip, sip, why);
	if (n < 0 || (size_t)n >= sizeof(line))
		return; /* names too long for a record: not counted */
	if (spool_tlsrpt_note(
		deliver_tlsrpt_spool, deliver_tlsrpt_clock(), line) == -1)
		log_warn(
		    "smtp: cannot record a TLS-RPT %s of %s", result, domain);
}

/* deliver_tlsrpt_note - append the session's record */
void
deliver_tlsrpt_note(const struct deliver_tlsrpt_session *t)
{
	char pol[DELIVER_TLSRPT_POLICY_MAX];
	char rip[INET6_ADDRSTRLEN], sip[INET6_ADDRSTRLEN];
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	const char *type, *result, *reason;

	if (deliver_tlsrpt_spool == NULL)
		return;
	result = deliver_tlsrpt_policy(t, &type, pol, sizeof(pol), &reason);
	deliver_tlsrpt_ip(&t->mx->addr, rip, sizeof(rip));
	memset(&local, 0, sizeof(local));
	if (getsockname(t->s->fd, (struct sockaddr *)&local, &llen) == -1)
		local.ss_family = AF_UNSPEC;
	deliver_tlsrpt_ip(&local, sip, sizeof(sip));
	deliver_tlsrpt_write(t->domain, type, pol, result ? result : "success",
	    t->mx->host, rip, sip, reason);
}

/* deliver_tlsrpt_refused - an MX host an enforce policy does not list,
 * not tried: a failure with no session, so no addresses */
void
deliver_tlsrpt_refused(
    const char *domain, const struct mta_sts_policy *p, const char *host)
{
	char pol[DELIVER_TLSRPT_POLICY_MAX];

	if (deliver_tlsrpt_spool == NULL)
		return;
	deliver_tlsrpt_sts(p, pol, sizeof(pol));
	deliver_tlsrpt_write(domain, "sts", pol, "validation-failure", host, "",
	    "", DELIVER_TLSRPT_MX_MISMATCH);
}

/* deliver_tlsrpt_fetch_failed - the policy of domain was not had: a
 * failure of type result (sts-policy-fetch-error, sts-policy-invalid,
 * sts-webpki-invalid) with no policy, MX host or address */
void
deliver_tlsrpt_fetch_failed(
    const char *domain, const char *result, const char *why)
{
	deliver_tlsrpt_write(domain, "sts", "", result, "", "", "", why);
}
