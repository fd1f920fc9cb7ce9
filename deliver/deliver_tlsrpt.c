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
 * under; the result it had (NULL: success) */
static const char *
deliver_tlsrpt_policy(const struct deliver_tlsrpt_session *t, const char **type,
    char *pol, size_t len)
{
	const struct smtp_session *s = t->s;

	pol[0] = '\0';
	if (t->tlsa != NULL && t->tlsa->n > 0) {
		*type = "tlsa";
		deliver_tlsrpt_tlsa(t->tlsa, pol, len);
	} else if (t->sts->pol.mode == MTA_STS_ENFORCE ||
		   t->sts->pol.mode == MTA_STS_TESTING) {
		*type = "sts";
		deliver_tlsrpt_sts(&t->sts->pol, pol, len);
	} else {
		/* No policy: any TLS is a success. */
		*type = "no-policy-found";
		if (s->tls != NULL && s->tls_state != SMTP_TLS_OFF)
			return NULL;
	}
	return tlsrpt_result(s);
}

/* deliver_tlsrpt_note - append the session's record */
void
deliver_tlsrpt_note(const struct deliver_tlsrpt_session *t)
{
	char line[SPOOL_TLSRPT_LINE_MAX], pol[DELIVER_TLSRPT_POLICY_MAX];
	char rip[INET6_ADDRSTRLEN], sip[INET6_ADDRSTRLEN];
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	const char *type, *result;
	int n;

	if (deliver_tlsrpt_spool == NULL)
		return;
	result = deliver_tlsrpt_policy(t, &type, pol, sizeof(pol));
	deliver_tlsrpt_ip(&t->mx->addr, rip, sizeof(rip));
	memset(&local, 0, sizeof(local));
	if (getsockname(t->s->fd, (struct sockaddr *)&local, &llen) == -1)
		local.ss_family = AF_UNSPEC;
	deliver_tlsrpt_ip(&local, sip, sizeof(sip));
	n = snprintf(line, sizeof(line), "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
	    t->domain, type, pol, result ? result : "success", t->mx->host, rip,
	    sip);
	if (n < 0 || (size_t)n >= sizeof(line))
		return; /* names too long for a record: not counted */
	if (spool_tlsrpt_note(
		deliver_tlsrpt_spool, deliver_tlsrpt_clock(), line) == -1)
		log_warn(
		    "smtp: cannot record the TLS session to %s for TLS-RPT",
		    t->mx->host);
}
