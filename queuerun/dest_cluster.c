/*
 * dest_cluster.c - the runner's side of the limits shared with other
 * hosts through Redis ([cluster], cluster.h), beside the local
 * destination table (dest_share.c) that the runners of this host share.
 *
 * A delivery to an SMTP destination starts when the local table allows
 * it (the window of this host's runners) and then when the cluster
 * does: a lease under the destination's concurrency limit over all
 * nodes, the shared rate bucket, no other node's dead time.  The lease
 * stays with the session the delivery opened as long as it is open
 * (cluster.c), so the receiver never counts more sessions from all
 * nodes than the limit.  A destination refused for want of a lease is
 * asked again after DEST_CLUSTER_POLL (a lease freed on another host
 * wakes nobody here), for the rate at the bucket's time, and a dead one
 * at its probe time, as the scheduler does for its own.
 *
 * Redis unreachable (CLUSTER_FALLBACK): the local table alone, with
 * this node's share of the window limit and of the rate
 * (dest_share_admit asks dest_cluster_mode); the delivery that found
 * Redis gone is not started but asked again DEST_CLUSTER_POLL later
 * under the shares, so nothing is held for Redis.  The mode is written to the
 * table's header for the status.
 *
 * Only SMTP destinations are shared: a maildir or pipe is this host's.
 */
#include <stdio.h>
#include <string.h>

#include "dest_cluster.h"
#include "deliver.h"
#include "qr_batch.h"
#include "qr_runner.h"
#include "spool_dest_name.h"

/* How soon a destination refused a lease is asked again (seconds). */
#define DEST_CLUSTER_POLL 0.1

/* dest_cluster_show - the mode into the table's header, for status */
static void
dest_cluster_show(struct queuerun *q)
{
	struct spool_dest_hdr *h = q->share.table.hdr;
	double since;
	int mode = (int)cluster_state(q->cluster.redis, &since);

	/* A runner that has not used Redis yet has nothing to say (and
	 * would hide what one that has found). */
	if (h == NULL || since == 0)
		return;
	__atomic_store_n(&h->cluster, mode, __ATOMIC_RELAXED);
	__atomic_store_n(&h->cluster_since, (int64_t)since, __ATOMIC_RELAXED);
}

/* dest_cluster_learn_time - how long a session limit the receiver
 * taught holds: the SMTP session cache time, as for one runner
 * (deliver_cache.c), a second at least */
static double
dest_cluster_learn_time(const struct queuerun *q)
{
	long long t = q->dc->transport[DELIVER_SMTP].cache_time;

	return t > 1 ? (double)t : 1.0;
}

/* dest_cluster_open - [cluster] on: the leases' bookkeeping */
void
dest_cluster_open(struct queuerun *q)
{
	q->cluster.redis = cluster_open(q->cs);
	if (q->cluster.redis != NULL)
		deliver_sessions_leased();
	q->cluster.admitted = 0;
	q->cluster.retry = 0;
}

/* dest_cluster_close - every lease back */
void
dest_cluster_close(struct queuerun *q)
{
	cluster_close(q->cluster.redis);
	q->cluster.redis = NULL;
}

/* dest_cluster_mode - how this destination's limits stand */
enum cluster_mode
dest_cluster_mode(const struct queuerun *q, const char *transport)
{
	double since;

	if (q->cluster.redis == NULL || strcmp(transport, "smtp") != 0)
		return CLUSTER_OFF;
	return cluster_state(q->cluster.redis, &since);
}

/* dest_cluster_admit - a lease, the shared rate and dead state */
int
dest_cluster_admit(struct queuerun *q, const char *transport,
    const char *nexthop, double now, struct sched_dest_state *st)
{
	char key[DEST_CLUSTER_KEY_MAX];
	struct cluster_limits lim;
	enum cluster_answer a;
	double wait;

	q->cluster.admitted = 0;
	if (dest_cluster_mode(q, transport) == CLUSTER_OFF ||
	    spool_dest_key(key, sizeof(key), transport, nexthop, NULL) == -1)
		return 1;
	lim.limit = st->limit;
	lim.interval = st->rate_interval;
	lim.learn = dest_cluster_learn_time(q);
	lim.initial = q->dc->sched_transport[DELIVER_SMTP].initial_concurrency;
	a = cluster_take(q->cluster.redis, key, nexthop, &lim, now, &wait);
	dest_cluster_show(q);
	switch (a) {
	case CLUSTER_GO:
		q->cluster.admitted = 1;
		return 1;
	case CLUSTER_RATE:
		if (now + wait > st->ds.rate_tat)
			st->ds.rate_tat = now + wait;
		return 0;
	case CLUSTER_DEAD:
		if (st->ds.window >= 0) {
			st->ds.dead = 1;
			st->ds.window = 0;
			st->ds.dead_until = now + wait;
		}
		return 0;
	case CLUSTER_FULL:
	case CLUSTER_LOCAL:
	default:
		/* FULL: asked again soon; LOCAL: as soon, under the shares
		 * (a lease that found no memory: again soon, not at once) */
		q->cluster.retry = now + DEST_CLUSTER_POLL;
		return 0;
	}
}

/* dest_cluster_ref - what the outcome of a delivery to e's
 * destination needs, copied while e lives (sched_core_done frees it) */
void
dest_cluster_ref(const struct queuerun *q, struct sched_entry *e,
    struct dest_cluster_ref *ref)
{
	const char *nh = sched_entry_nexthop(e);

	ref->ok = q->cluster.redis != NULL &&
		  spool_dest_key(ref->key, sizeof(ref->key),
		      sched_entry_transport(e), nh, NULL) == 0 &&
		  strlcpy(ref->nexthop, nh, sizeof(ref->nexthop)) <
		      sizeof(ref->nexthop);
}

/* dest_cluster_attach - the lease the last admit took, if any, goes
 * with the batch just made: 1 if there is one */
int
dest_cluster_attach(struct queuerun *q)
{
	int leased = q->cluster.admitted;

	q->cluster.admitted = 0;
	return leased;
}

/* dest_cluster_release - the delivery the last admit let through does
 * not start after all: the lease it took (if any) given back */
void
dest_cluster_release(struct queuerun *q, struct sched_entry *e, double now)
{
	struct dest_cluster_ref ref;

	dest_cluster_ref(q, e, &ref);
	dest_cluster_done(q, &ref, q->cluster.admitted, 0, NULL, now);
	q->cluster.admitted = 0;
}

/* dest_cluster_done - a delivery to ref's destination ended, or did not
 * start after all: its lease (leased) kept for the session while it is
 * open, else given back; a change of the dead state told to every node
 * (st: after the feedback, was_dead: before; NULL: unknown) */
void
dest_cluster_done(struct queuerun *q, const struct dest_cluster_ref *ref,
    int leased, int was_dead, const struct sched_dest_state *st, double now)
{
	if (!ref->ok)
		return;

	if (leased)
		cluster_done(q->cluster.redis, ref->key,
		    deliver_sessions_open(ref->nexthop), now);
	if (st != NULL && st->ds.dead && !was_dead)
		cluster_dead(
		    q->cluster.redis, ref->key, st->ds.dead_until - now, now);
	else if (st != NULL && !st->ds.dead && was_dead)
		cluster_dead(q->cluster.redis, ref->key, 0, now);
}

/* dest_cluster_tick - renew, trim, and ask refused destinations again */
double
dest_cluster_tick(struct queuerun *q, double now)
{
	struct cluster_sessions ss;
	double next;

	if (q->cluster.redis == NULL)
		return 0;
	ss.open = deliver_sessions_open;
	ss.refused = deliver_sessions_refused;
	ss.waiting = deliver_sessions_waiting;
	ss.grant = deliver_sessions_grant;
	ss.yield = deliver_sessions_yield;
	ss.learn = dest_cluster_learn_time(q);
	next = cluster_tick(q->cluster.redis, now, &ss);
	if (q->cluster.retry > 0 && now >= q->cluster.retry) {
		q->cluster.retry = 0;
		if (q->sched != NULL)
			sched_core_shared_retry(q->sched, now);
	}
	if (q->cluster.retry > 0 && (next == 0 || q->cluster.retry < next))
		next = q->cluster.retry;
	dest_cluster_show(q);
	return next;
}
