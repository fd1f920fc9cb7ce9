/*
 * dest_cluster.h - the runner's side of the limits shared with other
 * hosts through Redis (dest_cluster.c, cluster.h): leases and the
 * shared rate and dead state beside the local destination table.
 */
#ifndef MJQ_DEST_CLUSTER_H
#define MJQ_DEST_CLUSTER_H

#include <stddef.h>

#include "cluster.h"
#include "sched.h"

struct queuerun;
struct qr_batch;

/* dest_cluster_open - [cluster] on: Redis is reached on first use */
void dest_cluster_open(struct queuerun *q);
/* dest_cluster_close - every lease back */
void dest_cluster_close(struct queuerun *q);
/* dest_cluster_mode - how this destination's limits stand: CLUSTER_OFF
 * (not configured, or not an SMTP destination), CLUSTER_SHARED or
 * CLUSTER_FALLBACK (the local table with this node's shares) */
enum cluster_mode dest_cluster_mode(
    const struct queuerun *q, const char *transport);
/* dest_cluster_admit - after the local table said yes: a lease, the
 * shared rate and dead state.  1: go (q->admit_cluster set); 0: not
 * now, with st telling the scheduler why (rate time, dead) */
int dest_cluster_admit(struct queuerun *q, const char *transport,
    const char *nexthop, double now, struct sched_dest_state *st);
/* dest_cluster_release - a delivery under a lease of e's destination
 * ended, or did not start after all */
void dest_cluster_release(
    struct queuerun *q, struct sched_entry *e, double now);
/* dest_cluster_done - b's delivery ended: its lease kept for the
 * session while it stays open, else given back; the dead state told to
 * the other nodes when it changed (was_dead: before the feedback) */
void dest_cluster_done(struct queuerun *q, const struct qr_batch *b,
    int was_dead, const struct sched_dest_state *st, double now);
/* dest_cluster_tick - renew, trim, retry; when next (epoch s), or 0 */
double dest_cluster_tick(struct queuerun *q, double now);
/* dest_share_key - the destination's key, the one place it is built:
 * shared by the nodes in Redis; -1 when it does not fit */
int dest_share_key(
    const char *transport, const char *nexthop, char *key, size_t len);

#endif
