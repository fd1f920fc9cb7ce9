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
	long i =
	    delivery_domain_find(dc->map, dc->nmap, sizeof(*dc->map), domain);

	return i == -1 ? NULL : &dc->map[i];
}

/* route_domain - the part after the last "@", lowercase */
int
route_domain(const char *addr, char *buf, size_t len)
{
	const char *at;
	size_t i;

	if ((at = strrchr(addr, '@')) == NULL || strlen(at + 1) >= len)
		return -1;
	for (i = 0; at[1 + i] != '\0'; i++)
		buf[i] = (char)tolower((unsigned char)at[1 + i]);
	buf[i] = '\0';
	return 0;
}

/* route_rcpt - route one address; -1 when it has no usable domain */
int
route_rcpt(struct queuerun *q, const char *addr, enum deliver_transport *t,
    char *nexthop, size_t len)
{
	char domain[NAME_DOMAIN_MAX + 1];
	const struct delivery_map *m;

	if (route_domain(addr, domain, sizeof(domain)) == -1)
		return -1;
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
