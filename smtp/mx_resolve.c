/*
 * mx_resolve.c - a nexthop to the ordered list of addresses to try.
 *
 * The lookups use res_nquery on a resolver state of our own, so each
 * runner thread has its own, and a test (or an operator) can point it at
 * one DNS server with dns_server = addr[:port].  The caller tries the
 * addresses in order and moves to the next on a connection or handshake
 * failure, as Postfix's smtp client does.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mx_resolve.h"

#define MX_ANSWER_MAX 65536
#define MX_HOSTS_MAX 16 /* exchanges looked at; Postfix tries 5 */

/* mx_resolver_init - a resolver; dns_server "addr[:port]" or "" */
int
mx_resolver_init(
    struct mx_resolver *r, const char *dns_server, char *why, size_t whylen)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	char addr[INET_ADDRSTRLEN + 8], *colon, *end;
	long port = NAMESERVER_PORT;

	memset(r, 0, sizeof(*r));
	if (res_ninit(&r->res) == -1) {
		snprintf(why, whylen, "cannot initialize the resolver");
		return -1;
	}
	/* Keep the AD bit of answers: DANE trusts the resolver that is
	 * configured (smtp_dns_support_level = dnssec), as Postfix does. */
	r->res.options |= RES_TRUSTAD;
	if (dns_server == NULL || dns_server[0] == '\0')
		return 0;
	if (strlcpy(addr, dns_server, sizeof(addr)) >= sizeof(addr))
		goto bad;
	if ((colon = strchr(addr, ':')) != NULL) {
		*colon = '\0';
		port = strtol(colon + 1, &end, 10);
		if (*end != '\0' || end == colon + 1 || port < 1 ||
		    port > 65535)
			goto bad;
	}
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		goto bad;
	sin.sin_port = htons(port);
	/* res_send notices the changed list and drops its cached copy. */
	r->res.nsaddr_list[0] = sin;
	r->res.nscount = 1;
	return 0;
bad:
	snprintf(why, whylen, "bad dns_server \"%s\": want IPv4addr[:port]",
	    dns_server);
	res_nclose(&r->res);
	return -1;
}

/* mx_resolver_close - release the resolver's sockets */
void
mx_resolver_close(struct mx_resolver *r)
{
	res_nclose(&r->res);
}

/* Besides an answer length (0 for NODATA), a query can end in these. */
#define MX_QUERY_TEMPFAIL (-1)
#define MX_QUERY_NXDOMAIN (-2)

/* mx_resolve_query - one query: answer length or MX_QUERY_* */
static int
mx_resolve_query(
    struct mx_resolver *r, const char *name, int type, unsigned char *ans)
{
	int n;

	if ((n = res_nquery(
		 &r->res, name, ns_c_in, type, ans, MX_ANSWER_MAX)) >= 0)
		return n;
	/* NXDOMAIN and NODATA are answers; anything else is trouble. */
	if (r->res.res_h_errno == HOST_NOT_FOUND)
		return MX_QUERY_NXDOMAIN;
	if (r->res.res_h_errno == NO_DATA)
		return 0;
	return MX_QUERY_TEMPFAIL;
}

/* mx_resolve_cmp - order by preference */
static int
mx_resolve_cmp(const void *a, const void *b)
{
	return ((const struct mx_host *)a)->pref -
	       ((const struct mx_host *)b)->pref;
}

/* mx_resolve_sort - preference order, equal preferences shuffled */
static void
mx_resolve_sort(struct mx_host *h, size_t n)
{
	struct mx_host tmp;
	size_t i, j, start, end;

	if (n < 2) /* qsort(NULL, 0) is undefined */
		return;
	qsort(h, n, sizeof(*h), mx_resolve_cmp);
	/* Fisher-Yates within each run of equal preference (RFC 5321 5.1),
	 * so that load spreads over equal exchanges. */
	for (start = 0; start < n; start = end) {
		for (end = start + 1; end < n && h[end].pref == h[start].pref;
		     end++)
			;
		for (i = end - 1; i > start; i--) {
			j = start + arc4random_uniform(i - start + 1);
			tmp = h[i];
			h[i] = h[j];
			h[j] = tmp;
		}
	}
}

/* mx_resolve_host - append the A and AAAA addresses of one host */
static int
mx_resolve_host(struct mx_resolver *r, const char *host, int pref, int port,
    unsigned char *ans, struct mx_list *l)
{
	static const int types[] = {ns_t_a, ns_t_aaaa};
	int i, n, tempfail = 0;

	for (i = 0; i < 2; i++) {
		if ((n = mx_resolve_query(r, host, types[i], ans)) ==
		    MX_QUERY_TEMPFAIL)
			tempfail = 1;
		else if (n > 0 &&
			 mx_parse_addrs(ans, n, host, pref, port, l) == -1)
			tempfail = 1;
	}
	return tempfail ? -1 : 0;
}

/* mx_resolve_split - "[host]:port" into host, port and whether MX */
static int
mx_resolve_split(
    const char *nexthop, char *host, size_t hostlen, int *port, int *use_mx)
{
	const char *p = nexthop, *end, *colon;
	char *e;
	long v;

	*use_mx = *p != '[';
	if (*p == '[') {
		if ((end = strchr(++p, ']')) == NULL)
			return -1;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL)
			return -1;
	} else {
		colon = strrchr(p, ':');
		end = colon ? colon : p + strlen(p);
	}
	if (end == p || (size_t)(end - p) >= hostlen ||
	    strcspn(p, " \t\r\n") < (size_t)(end - p))
		return -1;
	memcpy(host, p, end - p);
	host[end - p] = '\0';
	if (colon != NULL) {
		v = strtol(colon + 1, &e, 10);
		if (*e != '\0' || e == colon + 1 || v < 1 || v > 65535)
			return -1;
		*port = v;
	}
	return 0;
}

/* mx_nexthop_check - whether mx_resolve can use nexthop at all: the
 * configuration's check, so that a nexthop no delivery could use is an
 * error where it is written instead of a deferral of every message */
int
mx_nexthop_check(const char *nexthop)
{
	char host[MX_NAME_MAX];
	int port = 25, use_mx;

	return mx_resolve_split(nexthop, host, sizeof(host), &port, &use_mx);
}

/* mx_resolve - the addresses to try for a nexthop, in order */
enum mx_status
mx_resolve(struct mx_resolver *r, const char *nexthop, int port,
    struct mx_list *l, char *why, size_t whylen)
{
	unsigned char *ans = NULL;
	struct mx_host *hosts = NULL;
	char host[MX_NAME_MAX];
	size_t nhosts = 0, i;
	int n, use_mx, tempfail = 0, lit;
	enum mx_status st = MX_OK;

	memset(l, 0, sizeof(*l));
	why[0] = '\0';
	if (mx_resolve_split(nexthop, host, sizeof(host), &port, &use_mx) ==
	    -1) {
		snprintf(why, whylen, "bad nexthop syntax: %s", nexthop);
		return MX_TEMPFAIL;
	}
	/* A host named in the configuration ("[host]") needs no proof. */
	l->secure = !use_mx;
	if ((lit = mx_parse_literal(host, port, l)) != 0)
		return lit == 1 ? MX_OK : MX_TEMPFAIL;
	if ((ans = malloc(MX_ANSWER_MAX)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return MX_TEMPFAIL;
	}
	if (use_mx) {
		if ((n = mx_resolve_query(r, host, ns_t_mx, ans)) ==
		    MX_QUERY_TEMPFAIL) {
			snprintf(why, whylen, "MX lookup of %s failed", host);
			st = MX_TEMPFAIL;
			goto out;
		}
		l->secure = n >= 4 && (ans[3] & 0x20) != 0; /* AD */
		if (n == MX_QUERY_NXDOMAIN) {
			snprintf(why, whylen,
			    "%s: Host or domain name not found", host);
			st = MX_NOTFOUND;
			goto out;
		}
		if (n > 0 && mx_parse_mx(ans, n, &hosts, &nhosts) == -1) {
			snprintf(
			    why, whylen, "malformed MX answer for %s", host);
			st = MX_TEMPFAIL;
			goto out;
		}
		if (nhosts == 1 && hosts[0].name[0] == '\0') {
			snprintf(
			    why, whylen, "%s accepts no mail (null MX)", host);
			st = MX_NOTFOUND;
			goto out;
		}
	}
	mx_resolve_sort(hosts, nhosts);
	for (i = 0; i < nhosts && i < MX_HOSTS_MAX; i++)
		if (hosts[i].name[0] != '\0' &&
		    mx_resolve_host(
			r, hosts[i].name, hosts[i].pref, port, ans, l) == -1)
			tempfail = 1;
	/* No MX at all: the domain itself is the exchange. */
	if (nhosts == 0 && mx_resolve_host(r, host, 0, port, ans, l) == -1)
		tempfail = 1;
	if (l->n == 0) {
		st = tempfail ? MX_TEMPFAIL : MX_NOTFOUND;
		snprintf(why, whylen, "%s: %s", host,
		    tempfail ? "address lookup failed"
			     : "Host or domain name not found");
	}
out:
	free(hosts);
	free(ans);
	return st;
}
