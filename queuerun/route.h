/*
 * route.h - a recipient's transport and nexthop (route.c):
 * [transport_map], then [delivery] relayhost, else its domain by MX.
 */
#ifndef MJQ_ROUTE_H
#define MJQ_ROUTE_H

#include <stddef.h>

#include "deliver.h"

struct queuerun;

/* route_domain - addr's domain, lowercase, into buf; -1 when it has
 * none or it does not fit */
int route_domain(const char *addr, char *buf, size_t len);
/* route_rcpt - addr's transport and nexthop; -1 when it cannot be routed
 * (no domain) or the nexthop does not fit in len */
int route_rcpt(struct queuerun *q, const char *addr, enum deliver_transport *t,
    char *nexthop, size_t len);

#endif
