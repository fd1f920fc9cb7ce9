/*
 * mx_resolve.h - a nexthop to the ordered list of addresses to try.
 *
 * "domain" and "domain:port" look up MX records (preference order, equal
 * preferences shuffled), then each exchange's A and AAAA records; with no
 * MX, the domain's own A/AAAA (RFC 5321 5.1).  "[host]" and "[host]:port"
 * skip the MX lookup; an IP literal needs no lookup at all.
 */
#ifndef MJQ_MX_RESOLVE_H
#define MJQ_MX_RESOLVE_H

#include <netinet/in.h>
#include <arpa/nameser.h>
#include <resolv.h>

#include "mx_parse.h"

/* A resolver of our own: thread-safe (one per thread), and pointed at
 * the configured dns_server instead of resolv.conf when one is given. */
struct mx_resolver {
	struct __res_state res;
};

enum mx_status {
	MX_OK,	     /* list has at least one address */
	MX_TEMPFAIL, /* DNS trouble or a bad nexthop: defer (4.4.3) */
	MX_NOTFOUND  /* no such domain, no address, null MX: bounce */
};

int mx_resolver_init(struct mx_resolver *, const char *, char *, size_t);
void mx_resolver_close(struct mx_resolver *);
int mx_nexthop_check(const char *);
enum mx_status mx_resolve(
    struct mx_resolver *, const char *, int, struct mx_list *, char *, size_t);

#endif
