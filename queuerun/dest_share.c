/*
 * dest_share.c - the runner's side of the destination table shared by
 * every runner ($spool/state/destinations, spool_dest.h).
 *
 * The scheduler stays pure: it asks, through its admit callback, whether
 * a delivery may start, and adopts the shared state it is handed; here is
 * the I/O.  Per delivery that costs the table lock twice (at the start
 * and at the outcome) and a few reads and writes of the mapped record,
 * never a file read or write per recipient.
 *
 * At the start (dest_share_admit): the record's window, feedback and dead
 * state go to the scheduler; the delivery starts only below the shared
 * window, counting the busy slots of all runners, and within the shared
 * destination_rate_limit (taken at once, so the rate holds over all
 * runners), and then holds a slot (a lock the kernel drops if we die).  A
 * destination another runner found dead is deferred here too, without a
 * connection attempt, until its probe time; then one probe over all runners is
 * let through. At the outcome (dest_share_done): the record is loaded into the
 * scheduler again (others may have changed it meanwhile), the feedback is
 * applied, the result is stored back and the slot released, all under
 * one lock, so no runner's feedback overwrites another's.
 *
 * A record is a (destination, source address) with a sending-address
 * pool: the scheduler's name "source->nexthop" is looked up among the
 * runner's destinations (qr_dest.c) and stored as its two parts.
 *
 * Without the table (it cannot be made, or is full) a runner schedules on
 * its own, as a lone runner always may.
 *
 * With [cluster] (dest_cluster.c) an SMTP delivery the table admits
 * also needs a lease from Redis, and the rate is Redis's rather than
 * the table's; while Redis cannot be reached the table holds this
 * node's shares instead: the window at most limit / expected_nodes, the
 * rate interval times expected_nodes.
 */
#include <string.h>

#include "dest_cluster.h"
#include "dest_share.h"
#include "dest_wait.h"
#include "log.h"
#include "qr_batch.h"
#include "qr_dest.h"
#include "qr_runner.h"

/* dest_share_open - map the table; without it, run unshared */
void
dest_share_open(struct queuerun *q)
{
	q->share.admit_rec = q->share.admit_slot = -1;
	dest_cluster_open(q);
	if (spool_dest_open(&q->share.table, q->s->spool_dir, 1) == -1)
		log_warn("cannot open %s/%s; destination concurrency is "
			 "not shared with other runners",
		    q->s->spool_dir, SPOOL_DEST_FILE);
}

/* dest_share_get - a record as the scheduler's state; busy: others' */
static void
dest_share_get(
    const struct spool_dest_rec *r, int others, struct sched_dest_state *st)
{
	memset(st, 0, sizeof(*st));
	st->ds = r->ds;
	st->busy = others;
}

/* dest_share_put - the scheduler's state into a record */
static void
dest_share_put(
    struct spool_dest_rec *r, const struct sched_dest_state *st, double now)
{
	double tat = r->ds.rate_tat;

	r->ds = st->ds;
	if (tat > r->ds.rate_tat)
		r->ds.rate_tat = tat;
	r->updated = now;
}

/* dest_share_count - a batch's recipients into the record's counts;
 * the error of a failed connection or of a deferred or bounced
 * recipient becomes its last error */
static void
dest_share_count(struct spool_dest_rec *r, const struct qr_batch *b,
    enum sched_outcome o, double now)
{
	const char *error = NULL;
	size_t i;

	for (i = 0; i < b->d.n; i++) {
		if (b->d.res[i].outcome == DELIVER_SENT)
			r->delivered++;
		else if (b->d.res[i].outcome == DELIVER_DEFERRED)
			r->deferred++;
		else
			r->bounced++;
		if (b->d.res[i].outcome != DELIVER_SENT && error == NULL)
			error = b->d.res[i].text;
	}
	if (o == SCHED_CONN_FAIL && b->d.n > 0)
		error = b->d.res[0].text;
	if (error != NULL) {
		/* cut to the record's field on purpose */
		(void)strlcpy(r->last_error, error, sizeof(r->last_error));
		r->error_at = now;
	}
}

/* dest_share_admit - the scheduler's admit callback: may a delivery to
 * this destination start now?  1 yes (a slot is held), 0 no */
int
dest_share_admit(void *arg, const char *transport, const char *name, double now,
    struct sched_dest_state *st)
{
	struct queuerun *q = arg;
	struct spool_dest *sd = &q->share.table;
	struct sched_dest_state local;
	struct spool_dest_rec *r;
	const struct qr_dest *d;
	enum cluster_mode cm = dest_cluster_mode(q, transport);
	double interval = st->rate_interval, tat;
	int idx, busy, mine, ok, slot = -1, limit = st->limit;

	/* The scheduler's name is "source->nexthop" with a source; the
	 * record keeps the two apart.  The cluster's key is the name. */
	if (sd->fd == -1 ||
	    (d = qr_dest_find(&q->dests, transport, name)) == NULL ||
	    spool_dest_lock(sd) == -1)
		return dest_cluster_admit(q, transport, name, now, st);
	if ((idx = spool_dest_find(
		 sd, transport, d->nexthop, qr_dest_source(d), 1, now)) == -1) {
		spool_dest_unlock(sd);
		/* table full: this one is ours alone (and the cluster's) */
		return dest_cluster_admit(q, transport, name, now, st);
	}
	r = &sd->rec[idx];
	if (r->ds.window < 0) {
		/* First use anywhere: our state (the initial one) is it. */
		if (sched_dest_state(q->sched, transport, name, &local) == -1)
			local.ds.window = 1;
		local.ds.rate_tat = 0;
		dest_share_put(r, &local, now);
	}
	busy = spool_dest_busy(sd, idx, 0, &mine);
	/* Looks full: a dead runner's hints may be why; check the locks. */
	if (busy > 0 && busy >= (r->ds.dead ? 1 : r->ds.window))
		busy = spool_dest_busy(sd, idx, 1, &mine);
	if (r->ds.dead)
		ok = now >= r->ds.dead_until && busy == 0; /* one probe */
	else
		ok = busy < r->ds.window &&
		     (cm != CLUSTER_FALLBACK || limit <= 0 ||
			 busy < cluster_share(q->cluster.redis, limit));
	/* Shared in Redis: the cluster's bucket, not the table's; with
	 * Redis gone this node's share of the rate. */
	if (cm == CLUSTER_SHARED)
		interval = 0;
	else if (cm == CLUSTER_FALLBACK)
		interval *= cluster_nodes(q->cluster.redis);
	/* The rate is taken here, under the lock, so that every runner's
	 * starts count at once; the scheduler is handed the time before
	 * this start, and takes the same step on its own copy. */
	tat = r->ds.rate_tat;
	if (ok && !r->ds.dead &&
	    !sched_rate_take(&r->ds.rate_tat, now, interval))
		ok = 0;
	if (ok && (slot = spool_dest_take(sd, idx)) == -1) {
		ok = 0; /* more than SPOOL_DEST_SLOTS in flight */
		r->ds.rate_tat = tat;
	}
	interval = st->rate_interval;
	dest_share_get(r, busy - mine, st);
	st->ds.rate_tat = tat;
	st->limit = limit;
	st->rate_interval = interval;
	if (ok) {
		q->share.admit_rec = idx;
		q->share.admit_slot = slot;
	} else
		dest_wait_refused(q, sd);
	spool_dest_unlock(sd);
	if (ok && cm == CLUSTER_SHARED &&
	    !dest_cluster_admit(q, transport, name, now, st)) {
		spool_dest_release(sd, idx, slot);
		q->share.admit_rec = q->share.admit_slot = -1;
		ok = 0;
	}
	return ok;
}

/* dest_share_attach - the slot the last admit took goes with the batch
 * of the entry just selected (selection starts the admitted entry at
 * once, so they are the same destination) */
void
dest_share_attach(struct queuerun *q, struct qr_batch *b)
{
	b->share_rec = q->share.admit_rec;
	b->share_slot = q->share.admit_slot;
	b->cluster = dest_cluster_attach(q);
	q->share.admit_rec = q->share.admit_slot = -1;
}

/* dest_share_undo - the entry the last admit let through gets no batch
 * (memory): its slot and its lease given back untried */
void
dest_share_undo(struct queuerun *q, struct sched_entry *e, double now)
{
	if (q->share.admit_slot >= 0)
		spool_dest_release(
		    &q->share.table, q->share.admit_rec, q->share.admit_slot);
	q->share.admit_rec = q->share.admit_slot = -1;
	dest_cluster_release(q, e, now);
}

/* dest_share_done - feedback through the shared state, then give the
 * slot back; returns sched_core_done's flags */
int
dest_share_done(
    struct queuerun *q, struct qr_batch *b, enum sched_outcome o, double now)
{
	struct spool_dest *sd = &q->share.table;
	const char *tr = sched_entry_transport(b->entry);
	const char *name = sched_entry_nexthop(b->entry);
	const char *src = b->d.source != NULL ? b->d.source->addr : "";
	struct sched_dest_state st;
	struct spool_dest_rec *r;
	int flags, busy, mine, idx = b->share_rec, havelock, shared = 0;
	struct dest_cluster_ref ref;
	int was_dead = 0;

	/* (the entry, and with it tr and name, may be gone after
	 * sched_core_done) */
	dest_cluster_ref(q, b->entry, &ref);
	if (b->share_slot < 0 || sd->fd == -1) {
		flags = sched_core_done(q->sched, b->entry, o, now, NULL);
		dest_cluster_done(q, &ref, b->cluster, 0, NULL, now);
		return flags;
	}
	havelock = spool_dest_lock(sd) == 0;
	r = &sd->rec[idx];
	/* The record cannot change hands while we hold a slot in it. */
	if (havelock && spool_dest_match(sd, idx, tr, b->d.nexthop, src) &&
	    r->ds.window >= 0) {
		busy = spool_dest_busy(sd, idx, 0, &mine);
		dest_share_get(r, busy - mine, &st);
		shared = sched_dest_load(q->sched, tr, name, &st, now) == 0;
		was_dead = st.ds.dead;
	}
	flags = sched_core_done(q->sched, b->entry, o, now, &st);
	dest_cluster_done(
	    q, &ref, b->cluster, was_dead, shared ? &st : NULL, now);
	if (shared) {
		dest_share_put(r, &st, now);
		dest_share_count(r, b, o, now);
		if (b->d.tls != SPOOL_DEST_TLS_UNKNOWN)
			r->tls = b->d.tls;
	}
	spool_dest_release(sd, idx, b->share_slot);
	b->share_slot = b->share_rec = -1;
	if (havelock)
		spool_dest_unlock(sd);
	return flags;
}

/* dest_share_close - unmap; any slot still held is released with it */
void
dest_share_close(struct queuerun *q)
{
	dest_wait_stop(q);
	dest_cluster_close(q);
	if (q->share.table.fd != -1 || q->share.table.hdr != NULL)
		spool_dest_close(&q->share.table);
}
