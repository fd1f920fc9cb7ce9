/*
 * deliver_tls.c - TLS for the smtp transport: the destination's policy
 * (smtp_tls_security_level, or its [tls_policy] line), STARTTLS on each
 * new session (smtp_tls.c), the fallback to clear text at may (a
 * refused STARTTLS, a failed handshake), and the log lines Postfix
 * writes.  The order of policies: a [tls_policy] line; DANE where the
 * MX host has TLSA records; the recipient domain's MTA-STS policy
 * (deliver_sts.c) at enforce (only MX hosts its patterns match, each at
 * verify with the MX host name, never clear text) or testing (as
 * before, what would have failed logged); smtp_tls_security_level.
 * Each session's policy and result are recorded for TLS-RPT
 * (deliver_tlsrpt.c), and so is each MX host an enforce policy refuses.
 *
 * One TLS context per transport's parameters, made at first use and
 * shared by every worker thread of the runner: it holds the CA store and
 * the session cache, so a session to a peer is resumed by whichever
 * thread connects next, and a big post does a few full handshakes per
 * destination.  At shutdown the counts of full and resumed handshakes
 * are logged, for the tests and the benchmark.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "deliver_sts.h"
#include "deliver_tls.h"
#include "deliver_tlsrpt.h"
#include "log.h"
#include "smtp.h"

#define DELIVER_TLS_CTX_MAX 16 /* parameter sets: one per transport */

struct deliver_tls_slot {
	const struct delivery_params *params;
	struct smtp_tls_ctx *ctx; /* NULL: it could not be made */
	char why[200];
};

static pthread_mutex_t deliver_tls_mu = PTHREAD_MUTEX_INITIALIZER;
static struct deliver_tls_slot deliver_tls_slots[DELIVER_TLS_CTX_MAX];
static int deliver_tls_nslots;

/* deliver_tls_ctx - the context of these parameters, made once; NULL
 * with why when it cannot be made (a CAfile that does not load) */
static struct smtp_tls_ctx *
deliver_tls_ctx(const struct delivery_params *p, char *why, size_t whylen)
{
	struct smtp_tls_config cf = {.cafile = p->tls_cafile,
	    .cert_file = p->tls_cert_file,
	    .key_file = p->tls_key_file,
	    .min_protocol = p->tls_protocols + 2}; /* past ">=" */
	struct deliver_tls_slot *sl = NULL;
	struct smtp_tls_ctx *ctx;
	int i;

	pthread_mutex_lock(&deliver_tls_mu);
	for (i = 0; i < deliver_tls_nslots; i++)
		if (deliver_tls_slots[i].params == p)
			sl = &deliver_tls_slots[i];
	if (sl == NULL && deliver_tls_nslots < DELIVER_TLS_CTX_MAX) {
		sl = &deliver_tls_slots[deliver_tls_nslots++];
		sl->params = p;
		if ((sl->ctx = smtp_tls_ctx_new(
			 &cf, sl->why, sizeof(sl->why))) == NULL)
			log_warnx("smtp: TLS disabled: %s", sl->why);
	}
	ctx = sl ? sl->ctx : NULL;
	(void)strlcpy(why, sl ? sl->why : "too many TLS contexts", whylen);
	pthread_mutex_unlock(&deliver_tls_mu);
	return ctx;
}

/* deliver_tls_close - log the handshake counts, free the contexts */
void
deliver_tls_close(void)
{
	unsigned long full, resumed;
	int i;

	pthread_mutex_lock(&deliver_tls_mu);
	for (i = 0; i < deliver_tls_nslots; i++) {
		if (deliver_tls_slots[i].ctx == NULL)
			continue;
		smtp_tls_ctx_counts(deliver_tls_slots[i].ctx, &full, &resumed);
		if (full + resumed > 0)
			log_info("smtp: TLS handshakes: full=%lu resumed=%lu",
			    full, resumed);
		smtp_tls_ctx_free(deliver_tls_slots[i].ctx);
	}
	deliver_tls_nslots = 0;
	pthread_mutex_unlock(&deliver_tls_mu);
}

/* deliver_tls_domain - the domain of a nexthop: "[host]:port" -> host */
static void
deliver_tls_domain(const char *nexthop, char *out, size_t outlen)
{
	size_t len;

	if (*nexthop == '[')
		nexthop++;
	len = strcspn(nexthop, "]:");
	if (len >= outlen)
		len = outlen - 1;
	memcpy(out, nexthop, len);
	out[len] = '\0';
}

/* deliver_tls_port - the port of an address */
static int
deliver_tls_port(const struct mx_target *t)
{
	const struct sockaddr *sa = (const struct sockaddr *)&t->addr;

	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

/* deliver_tls_defer - st: deferred for a reason of policy, which is
 * not the server's fault (positive feedback) */
static int
deliver_tls_defer(struct smtp_status *st, const char *dsn, const char *text)
{
	memset(st, 0, sizeof(*st));
	st->outcome = SMTP_DEFERRED;
	st->feedback = SMTP_FEEDBACK_POSITIVE;
	(void)strlcpy(st->dsn, dsn, sizeof(st->dsn));
	(void)strlcpy(st->text, text, sizeof(st->text));
	return -1;
}

/* deliver_tls_sts - MTA-STS on the level: enforce takes only MX hosts
 * its mx patterns match, at verify with the MX host name (RFC 8461
 * 4.1, 5); testing and none leave the level as it is.  -1 (st set) for
 * a host the policy refuses, recorded for TLS-RPT. */
static int
deliver_tls_sts(const struct deliver_sts_policy *sts, const char *domain,
    struct smtp_tls_policy *pol, struct smtp_status *st)
{
	char text[600];

	if (sts->pol.mode != MTA_STS_ENFORCE)
		return 0;
	if (!mta_sts_mx_allowed(&sts->pol, pol->host)) {
		deliver_tlsrpt_refused(domain, &sts->pol, pol->host);
		snprintf(text, sizeof(text),
		    "MX host %s does not match the MTA-STS policy of %s",
		    pol->host, domain);
		return deliver_tls_defer(st, "4.7.5", text);
	}
	pol->level = SMTP_TLS_VERIFY;
	pol->match = "hostname";
	return 0;
}

/* deliver_tls_policy - the level and names for this nexthop and host:
 * a [tls_policy] line; else DANE where the host has TLSA records
 * (DNSSEC-validated MX and TLSA: dane is may without them, as in
 * Postfix); else the domain's MTA-STS policy (sts, emptied when it does
 * not apply) over smtp_tls_security_level.  -1 with st set when the
 * TLSA look-up failed or the policy refuses the host. */
static int
deliver_tls_policy(const struct delivery_params *p, const char *nexthop,
    struct mx_resolver *res, const struct mx_list *l, size_t i,
    struct smtp_tls_policy *pol, struct mx_tlsa_list *tlsa,
    struct deliver_sts_policy *sts, struct smtp_status *st)
{
	const struct delivery_tls_policy *tp;
	char why[300];

	pol->level = (enum smtp_tls_level)p->tls_level;
	pol->match = NULL;
	pol->host = l->v[i].host;
	pol->tlsa = NULL;
	if ((tp = delivery_tls_policy_find(p, nexthop)) != NULL) {
		pol->level = tp->level;
		pol->match = tp->match;
		sts->pol.mode = MTA_STS_NONE_FOUND; /* the operator's word */
	}
	if (sts->pol.mode == MTA_STS_NONE)
		sts->pol.mode = MTA_STS_NONE_FOUND; /* none: forget it */
	if (pol->level != SMTP_TLS_DANE)
		return deliver_tls_sts(sts, pol->nexthop, pol, st);
	if (!p->dns_dnssec || !l->secure) {
		pol->level = SMTP_TLS_MAY;
		return deliver_tls_sts(sts, pol->nexthop, pol, st);
	}
	if (mx_resolve_tlsa(res, l->v[i].host, deliver_tls_port(&l->v[i]), tlsa,
		why, sizeof(why)) != MX_OK)
		return deliver_tls_defer(st, "4.7.5", why);
	if (tlsa->n == 0)
		return deliver_tls_sts(sts, pol->nexthop, pol, st);
	/* DANE wins where there are TLSA records (RFC 8461 2). */
	sts->pol.mode = MTA_STS_NONE_FOUND;
	pol->tlsa = tlsa;
	return 0;
}

/* deliver_tls_testing - under a testing policy, log what enforce would
 * have refused: a host the patterns do not match, no TLS, or a
 * certificate not verified for the MX host name */
static void
deliver_tls_testing(const struct deliver_sts_policy *sts, const char *domain,
    const struct smtp_session *s, const char *host)
{
	const char *why = NULL;

	if (sts->pol.mode != MTA_STS_TESTING)
		return;
	if (!mta_sts_mx_allowed(&sts->pol, host))
		why = "MX host not in the policy";
	else if (s->tls == NULL)
		why = "no TLS";
	else if (s->tls_state != SMTP_TLS_VERIFIED)
		why = "certificate not verified for the MX host name";
	if (why != NULL)
		log_warnx("smtp: MTA-STS policy of %s (testing): %s would have "
			  "failed: %s",
		    domain, host, why);
}

/* deliver_tls_sts_get - the MTA-STS policy of the recipient domain,
 * for a nexthop "host" or "host:port" (MX look-ups); none for
 * "[host]" (no MX, so no MX patterns to match) */
static void
deliver_tls_sts_get(const struct delivery_params *p, const char *nexthop,
    const char *domain, struct deliver_sts_policy *sts)
{
	memset(sts, 0, sizeof(*sts));
	if (*nexthop != '[')
		deliver_sts_get(p, domain, sts);
}

/* deliver_tls_report - the session's record for TLS-RPT: sessions to
 * a recipient domain's MX hosts where TLS was tried (not "[host]") */
static void
deliver_tls_report(const char *nexthop, const char *domain,
    const struct smtp_tls_policy *pol, const struct deliver_sts_policy *sts,
    const struct mx_target *mx, const struct smtp_session *s)
{
	struct deliver_tlsrpt_session t = {domain, sts, pol->tlsa, mx, s};

	if (*nexthop != '[' && pol->level != SMTP_TLS_NONE)
		deliver_tlsrpt_note(&t);
}

/* deliver_tls_open - a session to address i of l, from o, with STARTTLS as the
 * policy asks; at may a failed handshake is retried in clear text on a
 * new connection, as Postfix does; 0, or -1 with st saying why */
int
deliver_tls_open(const struct delivery_params *p, const char *nexthop,
    const struct smtp_origin *o, struct mx_resolver *res,
    const struct mx_list *l, size_t i, struct smtp_session *s,
    const struct smtp_timeouts *to, struct smtp_status *st)
{
	const struct sockaddr *sa = (const struct sockaddr *)&l->v[i].addr;
	struct mx_tlsa_list tlsa = {0};
	struct deliver_sts_policy sts;
	struct smtp_tls_policy pol;
	struct smtp_tls_ctx *ctx = NULL;
	char domain[DELIVER_HOST_MAX], line[600], why[200];
	int r;

	deliver_tls_domain(nexthop, domain, sizeof(domain));
	pol.nexthop = domain;
	deliver_tls_sts_get(p, nexthop, domain, &sts);
	/* Before connecting: a host the policy refuses is not tried. */
	if (deliver_tls_policy(p, nexthop, res, l, i, &pol, &tlsa, &sts, st) ==
	    -1) {
		mx_tlsa_free(&tlsa);
		return -1;
	}
	if (smtp_session_open(
		s, l->v[i].host, sa, l->v[i].addrlen, o, to, st) == -1) {
		mx_tlsa_free(&tlsa);
		return -1;
	}
	/* The context (CA store, session cache) is made when first needed:
	 * a server offers STARTTLS.  Without it (a CAfile that does not
	 * load, logged once) smtp_tls_start defers at encrypt and above. */
	if (pol.level != SMTP_TLS_NONE && (s->features & SMTP_FEAT_STARTTLS))
		ctx = deliver_tls_ctx(p, why, sizeof(why));
	r = smtp_tls_start(
	    s, ctx, &pol, o->helo, (int)(p->starttls_timeout * 1000), st);
	deliver_tls_report(nexthop, domain, &pol, &sts, &l->v[i], s);
	mx_tlsa_free(&tlsa);
	if (r == 0 && s->tls != NULL &&
	    smtp_tls_describe(s, line, sizeof(line)) > 0)
		log_info("smtp: %s", line);
	if (r == -1 && sts.pol.mode == MTA_STS_ENFORCE)
		log_warnx("smtp: MTA-STS policy of %s (enforce): %s: %s",
		    domain, l->v[i].host, st->text);
	if (r != -1)
		deliver_tls_testing(&sts, domain, s, l->v[i].host);
	if (r == 1) {
		/* may: STARTTLS refused, clear text on this session. */
		log_warnx("smtp: %s; continuing in clear text", st->text);
		return 0;
	}
	if (r != -2)
		return r;
	/* may: say so, and deliver in clear text on a new connection. */
	log_warnx("smtp: %s; retrying in clear text", st->text);
	smtp_session_close(s);
	return smtp_session_open(
	    s, l->v[i].host, sa, l->v[i].addrlen, o, to, st);
}
