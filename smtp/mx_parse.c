/*
 * mx_parse.c - DNS answers to MX and A/AAAA queries, parsed without I/O.
 *
 * libresolv's ns_parserr() walks the records and checks every length
 * against the buffer, and ns_name_uncompress() follows compression
 * pointers safely, so a hostile answer yields an error, never a read
 * past the end.  Only the answer section counts; records of another
 * type (a CNAME before the MX records, say) are skipped.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/nameser.h>
#include <arpa/inet.h>
#include <errno.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mx_parse.h"

/* mx_parse_mx - the MX records of an answer, in answer order */
int
mx_parse_mx(
    const unsigned char *ans, int len, struct mx_host **hosts, size_t *n)
{
	struct mx_host *v = NULL, *h;
	const unsigned char *rd;
	ns_msg msg;
	ns_rr rr;
	int i, count;

	*hosts = NULL;
	*n = 0;
	if (ns_initparse(ans, len, &msg) == -1)
		return -1;
	count = ns_msg_count(msg, ns_s_an);
	for (i = 0; i < count; i++) {
		if (ns_parserr(&msg, ns_s_an, i, &rr) == -1)
			goto fail;
		if (ns_rr_type(rr) != ns_t_mx || ns_rr_class(rr) != ns_c_in)
			continue;
		if (ns_rr_rdlen(rr) < 3)
			goto fail;
		if ((h = reallocarray(v, *n + 1, sizeof(*v))) == NULL)
			goto fail;
		v = h;
		h = &v[*n];
		rd = ns_rr_rdata(rr);
		h->pref = ns_get16(rd);
		if (ns_name_uncompress(ns_msg_base(msg), ns_msg_end(msg),
			rd + 2, h->name, sizeof(h->name)) == -1)
			goto fail;
		/* The root name "." is the null MX; others lose the dot. */
		if (strcmp(h->name, ".") == 0)
			h->name[0] = '\0';
		(*n)++;
	}
	*hosts = v;
	return 0;
fail:
	free(v);
	*n = 0;
	return -1;
}

/* mx_parse_add - append one address to the list */
static int
mx_parse_add(struct mx_list *l, const char *host, int pref,
    const struct sockaddr *sa, socklen_t salen)
{
	struct mx_target *v, *t;

	if (l->n == l->cap) {
		if ((v = reallocarray(
			 l->v, l->cap ? l->cap * 2 : 8, sizeof(*v))) == NULL)
			return -1;
		l->v = v;
		l->cap = l->cap ? l->cap * 2 : 8;
	}
	t = &l->v[l->n];
	memset(t, 0, sizeof(*t));
	if (strlcpy(t->host, host, sizeof(t->host)) >= sizeof(t->host)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	l->n++;
	t->pref = pref;
	memcpy(&t->addr, sa, salen);
	t->addrlen = salen;
	return 0;
}

/* mx_parse_addrs - append the A and AAAA records of an answer */
int
mx_parse_addrs(const unsigned char *ans, int len, const char *host, int pref,
    int port, struct mx_list *l)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};
	ns_msg msg;
	ns_rr rr;
	int i, count;

	sin.sin_port = sin6.sin6_port = htons(port);
	if (ns_initparse(ans, len, &msg) == -1)
		return -1;
	count = ns_msg_count(msg, ns_s_an);
	for (i = 0; i < count; i++) {
		if (ns_parserr(&msg, ns_s_an, i, &rr) == -1)
			return -1;
		if (ns_rr_class(rr) != ns_c_in)
			continue;
		if (ns_rr_type(rr) == ns_t_a && ns_rr_rdlen(rr) == 4) {
			memcpy(&sin.sin_addr, ns_rr_rdata(rr), 4);
			if (mx_parse_add(l, host, pref, (struct sockaddr *)&sin,
				sizeof(sin)) == -1)
				return -1;
		} else if (ns_rr_type(rr) == ns_t_aaaa &&
			   ns_rr_rdlen(rr) == 16) {
			memcpy(&sin6.sin6_addr, ns_rr_rdata(rr), 16);
			if (mx_parse_add(l, host, pref,
				(struct sockaddr *)&sin6, sizeof(sin6)) == -1)
				return -1;
		}
	}
	return 0;
}

/* mx_parse_literal - an IP address literal; 1 if it was one, 0 if not */
int
mx_parse_literal(const char *host, int port, struct mx_list *l)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};

	sin.sin_port = sin6.sin6_port = htons(port);
	if (inet_pton(AF_INET, host, &sin.sin_addr) == 1)
		return mx_parse_add(l, host, 0, (struct sockaddr *)&sin,
			   sizeof(sin)) == -1
			   ? -1
			   : 1;
	/* RFC 5321 4.1.3 spells it "IPv6:"; accept the bare form too. */
	if (strncasecmp(host, "ipv6:", 5) == 0)
		host += 5;
	if (inet_pton(AF_INET6, host, &sin6.sin6_addr) == 1)
		return mx_parse_add(l, host, 0, (struct sockaddr *)&sin6,
			   sizeof(sin6)) == -1
			   ? -1
			   : 1;
	return 0;
}

/* mx_list_free - release a list */
void
mx_list_free(struct mx_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
