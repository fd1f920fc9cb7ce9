/*
 * mx_tlsa.c - the TLSA records of an SMTP server, for DANE (RFC 7672).
 *
 * The query asks for DNSSEC (the DO and AD bits) and glibc is told to
 * keep the AD bit of the answer (RES_TRUSTAD): the resolver named by
 * dns_server (or resolv.conf) is the one that validates, as Postfix
 * trusts its local resolver.  The records count only when the answer was
 * authenticated; an unauthenticated answer, NXDOMAIN or NODATA means no
 * DANE for the host.  The parser walks the answer with ns_parserr, which
 * checks every length, as mx_parse.c does.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mx_tlsa.h"

#define MX_TLSA_ANSWER_MAX 65536

/* mx_parse_tlsa - the TLSA records of an answer and whether it had AD */
int
mx_parse_tlsa(const unsigned char *ans, int len, struct mx_tlsa_list *l)
{
	const unsigned char *rd;
	struct mx_tlsa *v;
	ns_msg msg;
	ns_rr rr;
	int i, count;

	memset(l, 0, sizeof(*l));
	if (ns_initparse(ans, len, &msg) == -1)
		return -1;
	l->secure = ns_msg_getflag(msg, ns_f_ad);
	count = ns_msg_count(msg, ns_s_an);
	for (i = 0; i < count; i++) {
		if (ns_parserr(&msg, ns_s_an, i, &rr) == -1)
			goto fail;
		if (ns_rr_type(rr) != ns_t_tlsa || ns_rr_class(rr) != ns_c_in)
			continue;
		/* Too short or too long to be usable: skip it. */
		if (ns_rr_rdlen(rr) < 4 ||
		    ns_rr_rdlen(rr) - 3 > MX_TLSA_DATA_MAX)
			continue;
		if ((v = reallocarray(l->v, l->n + 1, sizeof(*v))) == NULL)
			goto fail;
		l->v = v;
		v = &l->v[l->n++];
		rd = ns_rr_rdata(rr);
		v->usage = rd[0];
		v->selector = rd[1];
		v->mtype = rd[2];
		v->len = ns_rr_rdlen(rr) - 3;
		memcpy(v->data, rd + 3, v->len);
	}
	return 0;
fail:
	mx_tlsa_free(l);
	return -1;
}

/* mx_resolve_tlsa - the authenticated TLSA records of host:port; MX_OK
 * with none when there are none or the answer was not authenticated */
enum mx_status
mx_resolve_tlsa(struct mx_resolver *r, const char *host, int port,
    struct mx_tlsa_list *l, char *why, size_t whylen)
{
	unsigned long saved = r->res.options;
	unsigned char *ans;
	char name[MX_NAME_MAX + 16];
	int n;

	memset(l, 0, sizeof(*l));
	why[0] = '\0';
	if ((size_t)snprintf(name, sizeof(name), "_%d._tcp.%s", port, host) >=
	    sizeof(name)) {
		snprintf(why, whylen, "TLSA name too long for %s", host);
		return MX_TEMPFAIL;
	}
	if ((ans = malloc(MX_TLSA_ANSWER_MAX)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return MX_TEMPFAIL;
	}
	r->res.options |= RES_USE_EDNS0 | RES_USE_DNSSEC | RES_TRUSTAD;
	n = res_nquery(
	    &r->res, name, ns_c_in, ns_t_tlsa, ans, MX_TLSA_ANSWER_MAX);
	r->res.options = saved;
	if (n < 0) {
		free(ans);
		/* No records is an answer; anything else is trouble. */
		if (r->res.res_h_errno == HOST_NOT_FOUND ||
		    r->res.res_h_errno == NO_DATA)
			return MX_OK;
		snprintf(why, whylen, "TLSA lookup of %s failed", name);
		return MX_TEMPFAIL;
	}
	if (mx_parse_tlsa(ans, n, l) == -1) {
		free(ans);
		snprintf(why, whylen, "malformed TLSA answer for %s", name);
		return MX_TEMPFAIL;
	}
	free(ans);
	if (!l->secure)
		mx_tlsa_free(l);
	return MX_OK;
}

/* mx_tlsa_free - release the records */
void
mx_tlsa_free(struct mx_tlsa_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
