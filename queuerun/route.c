/*
 * route.c - a recipient's transport and nexthop: [transport_map] first
 * (exact domain, then ".parent" entries, then "*"), then [delivery]
 * relayhost, else the recipient's domain by MX.
 *
 * The nexthop is the destination the scheduler counts: "[host]:port" (no
 * MX lookup), "host" or "host:port" (MX of host), a pipe command or a
 * maildir path.
 */
#include <ctype.h>
#include <string.h>

#include "names.h"
#include "qr_runner.h"
#include "route.h"

/* route_find - the map entry for a domain, or NULL */
static const struct delivery_map *
route_find(const struct delivery_conf *dc, const char *domain)
{
	const struct delivery_map *star = NULL;
	const char *d;
	size_t i;

	for (i = 0; i < dc->nmap; i++)
		if (strcmp(dc->map[i].domain, domain) == 0)
			return &dc->map[i];
	/* The most specific parent first: a.b.example -> .b.example. */
	for (d = strchr(domain, '.'); d != NULL; d = strchr(d + 1, '.'))
		for (i = 0; i < dc->nmap; i++)
			if (strcmp(dc->map[i].domain, d) == 0)
				return &dc->map[i];
	for (i = 0; i < dc->nmap; i++)
		if (strcmp(dc->map[i].domain, "*") == 0)
			star = &dc->map[i];
	return star;
}

/* route_rcpt - route one address; -1 when it has no usable domain */
int
route_rcpt(struct queuerun *q, const char *addr, enum deliver_transport *t,
    char *nexthop, size_t len)
{
	char domain[NAME_DOMAIN_MAX + 1];
	const struct delivery_map *m;
	const char *at;
	size_t i;

	if ((at = strrchr(addr, '@')) == NULL ||
	    strlen(at + 1) >= sizeof(domain))
		return -1;
	for (i = 0; at[1 + i] != '\0'; i++)
		domain[i] = (char)tolower((unsigned char)at[1 + i]);
	domain[i] = '\0';
	if ((m = route_find(q->dc, domain)) != NULL) {
		*t = m->transport;
		return strlcpy(nexthop, m->nexthop, len) < len ? 0 : -1;
	}
	*t = DELIVER_SMTP;
	if (q->dc->transport[DELIVER_SMTP].relayhost[0] != '\0')
		return strlcpy(nexthop,
			   q->dc->transport[DELIVER_SMTP].relayhost, len) < len
			   ? 0
			   : -1;
	return strlcpy(nexthop, domain, len) < len ? 0 : -1;
}
