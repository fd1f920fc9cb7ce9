/*
 * deliver.h - libdeliver, the delivery part: the pool of delivery threads
 * (deliver_pool.h), the batch contract with the runner (deliver_batch.h:
 * a batch in, a result per recipient out), the delivery sections of
 * mjq.conf (delivery_conf.h, with the sending-address pools of
 * delivery_source.h and the domain look-up of delivery_domain.h) and the
 * MTA-STS policy thread (deliver_sts.h, which the runner opens and closes)
 * and the TLS-RPT session records (deliver_tlsrpt.h). The
 * transports behind the pool (smtp with its TLS glue, pipe, maildir, discard)
 * are the part's own.  The one header other parts include.
 */
#ifndef MJQ_DELIVER_H
#define MJQ_DELIVER_H

#include "deliver_batch.h"
#include "deliver_pool.h"
#include "delivery_conf.h"
#include "delivery_domain.h"
#include "deliver_sts.h"
#include "deliver_tlsrpt.h"

/* deliver_sessions_open - this runner's SMTP sessions to nexthop open
 * now, idle ones included (deliver_cache.c); what [cluster] leases are
 * kept for */
int deliver_sessions_open(const char *nexthop);
/* deliver_sessions_refused - new sessions to nexthop the server refused
 * with 421 since the last call (deliver_cache.c): what [cluster] teaches
 * the other nodes */
int deliver_sessions_refused(const char *nexthop);
/* deliver_sessions_leased - new sessions go under [cluster] leases: a
 * delivery refused a session waits for deliver_sessions_grant */
void deliver_sessions_leased(void);
/* deliver_sessions_waiting - deliveries to nexthop refused a session
 * that wait for a lease taken anew */
int deliver_sessions_waiting(const char *nexthop);
/* deliver_sessions_grant - a lease taken anew for one of them; -1 when
 * none waits any more (the lease is not needed) */
int deliver_sessions_grant(const char *nexthop);
/* deliver_sessions_yield - close max of this runner's idle sessions to
 * nexthop, -1: all (another node waits for their [cluster] leases);
 * how many of them the server answered the QUIT of (it has ended those
 * sessions: their leases may go at once) */
int deliver_sessions_yield(const char *nexthop, int max);

#endif
