/*
 * dns_txt.c - the TXT records of a name, each record's strings joined
 * (RFC 7208 3.3), records separated by a newline; the smallest TTL.
 * MX_NOTFOUND is a definite no (NXDOMAIN or no TXT), MX_TEMPFAIL anything
 * else (no answer, SERVFAIL, a damaged answer).
 */
#include <arpa/nameser.h>
#include <netdb.h>
#include <resolv.h>
#include <string.h>

#include "dns_txt.h"

#define DNS_TXT_ANSWER_MAX 65536

/* dns_txt_rr - append one TXT record's strings to out */
static int
dns_txt_rr(
    const unsigned char *rd, size_t rdlen, char *out, size_t outlen, size_t *n)
{
	size_t i = 0, k;

	if (*n > 0) {
		if (*n + 1 >= outlen)
			return -1;
		out[(*n)++] = '\n';
	}
	while (i < rdlen) {
		k = rd[i++];
		if (i + k > rdlen || *n + k >= outlen)
			return -1;
		memcpy(out + *n, rd + i, k);
		*n += k;
		i += k;
	}
	out[*n] = '\0';
	return 0;
}

/* dns_txt - the TXT records of name in out */
enum mx_status
dns_txt(struct mx_resolver *r, const char *name, char *out, size_t outlen,
    unsigned *ttl)
{
	unsigned char ans[DNS_TXT_ANSWER_MAX];
	size_t n = 0;
	ns_msg msg;
	ns_rr rr;
	int len, i, found = 0;

	out[0] = '\0';
	*ttl = 0;
	if ((len = res_nquery(
		 &r->res, name, ns_c_in, ns_t_txt, ans, sizeof(ans))) < 0)
		return r->res.res_h_errno == HOST_NOT_FOUND ||
			       r->res.res_h_errno == NO_DATA
			   ? MX_NOTFOUND
			   : MX_TEMPFAIL;
	if (ns_initparse(ans, len, &msg) == -1)
		return MX_TEMPFAIL;
	for (i = 0; i < ns_msg_count(msg, ns_s_an); i++) {
		if (ns_parserr(&msg, ns_s_an, i, &rr) == -1)
			return MX_TEMPFAIL;
		if (ns_rr_type(rr) != ns_t_txt)
			continue;
		if (dns_txt_rr(ns_rr_rdata(rr), ns_rr_rdlen(rr), out, outlen,
			&n) == -1)
			return MX_TEMPFAIL;
		if (!found || ns_rr_ttl(rr) < *ttl)
			*ttl = ns_rr_ttl(rr);
		found = 1;
	}
	return found ? MX_OK : MX_NOTFOUND;
}
