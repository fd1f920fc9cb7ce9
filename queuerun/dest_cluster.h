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

#define DEST_CLUSTER_KEY_MAX 400

struct queuerun;

/* The leases' part of the runner (struct queuerun). */
struct dest_cluster {
	struct cluster *redis; /* [cluster] on, else NULL */
	int admitted;	       /* the last admit holds a lease too */
	double retry;	       /* ask refused destinations again then */
};

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
 * shared rate and dead state.  1: go (q->cluster.admitted set); 0: not
 * now, with st telling the scheduler why (rate time, dead) */
int dest_cluster_admit(struct queuerun *q, const char *transport,
    const char *nexthop, double now, struct sched_dest_state *st);
/* What the outcome of a delivery needs of its destination. */
struct dest_cluster_ref {
	int ok; /* [cluster] on and the key built */
	char key[DEST_CLUSTER_KEY_MAX];
	char nexthop[DEST_CLUSTER_KEY_MAX];
};

/* dest_cluster_ref - ref for e's destination, copied while e lives */
void dest_cluster_ref(const struct queuerun *q, struct sched_entry *e,
    struct dest_cluster_ref *ref);
/* dest_cluster_attach - the lease the last admit took goes with the
 * batch made for it (dest_share_attach): 1 if it took one */
int dest_cluster_attach(struct queuerun *q);
/* dest_cluster_release - the lease the last admit took (for e's
 * destination) given back: the delivery does not start after all */
void dest_cluster_release(
    struct queuerun *q, struct sched_entry *e, double now);
/* dest_cluster_done - a delivery to ref's destination ended, or did not
 * start after all: its lease (leased) kept for the session while it is
 * open, else given back; the dead state told to the other nodes when it
 * changed (st after the feedback, was_dead before; st NULL: unknown) */
void dest_cluster_done(struct queuerun *q, const struct dest_cluster_ref *ref,
    int leased, int was_dead, const struct sched_dest_state *st, double now);
/* dest_cluster_tick - renew, trim, retry; when next (epoch s), or 0 */
double dest_cluster_tick(struct queuerun *q, double now);

#endif
