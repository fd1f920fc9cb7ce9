/*
 * queuerun.c - the runner's work as queuerun.h offers it to the protocol
 * loop: open, step, the event fd, drain, close.
 *
 * The step loop is the only place that strings the stages together;
 * each stage returns to it and none calls the next:
 *
 *   outcomes   deliver_pool_collect -> outcome_batch -> dispatch_done,
 *              then outcome_sync: the state files of all the batches
 *              collected together to the sync thread, one fdatasync
 *              each; batches start meanwhile within outcome_room
 *   sweeps     sweep_run, before a walk, a minute apart: held posts
 *              expired, digests, archive inboxes, TLS-RPT (sweep.c)
 *   walk       walk_scan (or the last walk's leftovers)
 *   claim      walk_next, one message at a time, up to the active limit
 *   expand     expand_message (state file, text), the first contact
 *              on a list thread (listwork.c: posts on one, owner,
 *              request and bounce mail on the other), whose messages
 *              come back through expand_collect
 *   dispatch   dispatch_add (into the scheduler), dispatch_run (batches
 *              to the workers; dead destinations' come straight back to
 *              outcome_batch)
 *   finish     outcome_finish (bounce, remove or put off)
 *   release    walk_release (drop the claim)
 *
 * A step never blocks.  The only slow part is the walk and a first
 * expansion, both bounded by the active limit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clock.h"
#include "dest_cluster.h"
#include "dest_wait.h"
#include "dispatch.h"
#include "lists.h"
#include "expand.h"
#include "listwork.h"
#include "log.h"
#include "listfn.h"
#include "outcome.h"
#include "qr_batch.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "queuerun.h"
#include "sched.h"
#include "spool_death.h"
#include "sweep.h"
#include "walk.h"
#include "deliver.h"

/* queuerun_open - a runner for this spool with these list, cluster and
 * delivery sections (parsed once, by the caller, and kept by it until
 * queuerun_close) */
struct queuerun *
queuerun_open(const struct settings *s, const struct lists_settings *ls,
    const struct cluster_settings *cs, const struct delivery_conf *dc,
    char *err, size_t errlen)
{
	struct queuerun *q;

	if ((q = calloc(1, sizeof(*q))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	q->s = s;
	q->cs = cs;
	q->dc = dc;
	q->fn.s = s;
	q->fn.ls = ls;
	q->fn.dns_server = dc->transport[DELIVER_SMTP].dns_server;
	if (dispatch_open(q, err, errlen) == -1 ||
	    (q->pool = deliver_pool_open((int)dc->base.threads, err, errlen)) ==
		NULL) {
		dispatch_free(q);
		free(q);
		return NULL;
	}
	outcome_sync_start(q);
	/* MTA-STS policies: without them (logged) mail goes as before. */
	if (deliver_sts_open(
		s->spool_dir, &dc->transport[DELIVER_SMTP], err, errlen) == -1)
		log_warnx("MTA-STS off: %s", err);
	/* TLS-RPT: sessions recorded on the list functions' clock (a test
	 * build's can be moved), reports made by the sweeps (sweep.c). */
	if (tlsrpt_check(&q->fn, err, errlen) == -1)
		log_warnx("TLS-RPT off: %s", err);
	else if (ls->tlsrpt_enable)
		deliver_tlsrpt_open(s->spool_dir, listfn_now);
	q->rescan = 1;
	/* A line an earlier process with this pid left in state/runners
	 * would otherwise be read as this runner's death. */
	if (spool_death_busy(s->spool_dir, getpid(), "") == -1)
		log_warn(
		    "cannot clear this runner's line in %s", SPOOL_DEATH_FILE);
	return q;
}

/* queuerun_rescan - walk again at the next step */
void
queuerun_rescan(struct queuerun *q)
{
	q->rescan = 1;
}

/* queuerun_outcome - a batch is back (from a worker, or deferred
 * without one): its results, then the scheduler's feedback */
static void
queuerun_outcome(struct queuerun *q, struct qr_batch *b, double now)
{
	outcome_batch(q, b, now);
	dispatch_done(q, b, now);
}

/* queuerun_collect - every result the workers have posted, then made
 * durable together */
static void
queuerun_collect(struct queuerun *q, double now)
{
	struct deliver_batch *d;

	while ((d = deliver_pool_collect(q->pool)) != NULL)
		queuerun_outcome(q, qr_batch_of(d), now);
	outcome_sync(q);
}

/* queuerun_enter - a message expanded (r: 0, or -1 to release it):
 * enter its recipients into the scheduler; released when that cannot be
 * done */
static void
queuerun_enter(struct queuerun *q, struct qr_msg *m, int r)
{
	if (r == -1) {
		walk_release(q, m);
		return;
	}
	if (dispatch_add(q, m, m->lm.claimed) == -1) {
		log_warn("%s: cannot route its recipients", m->lm.name);
		expand_put_off(q, m);
		walk_release(q, m);
	}
}

/* queuerun_take - a message just claimed: expand it, then enter it;
 * one whose first contact is on a list thread waits there */
static void
queuerun_take(struct queuerun *q, struct qr_msg *m)
{
	int r;

	if ((r = expand_message(q, m)) != 1)
		queuerun_enter(q, m, r);
}

/* queuerun_expanded - the messages the list threads are done with */
static void
queuerun_expanded(struct queuerun *q)
{
	struct qr_msg *m;
	int r;

	while ((m = expand_collect(q, &r)) != NULL) {
		queuerun_enter(q, m, r);
		/* Released with nothing else in hand: as after a finish, a
		 * walk says whether more is due (and lets mj_queuerun -1
		 * see that it is idle). */
		if (r == -1 && q->walk.nactive == 0)
			q->rescan = 1;
	}
}

/* queuerun_claim - a pass of claims, when there is room: the leftovers of
 * the last walk, or a new walk when asked for or when a deferred message
 * has come due */
static void
queuerun_claim(struct queuerun *q, double now)
{
	struct walk_pass p = {0, 0, 0, 0};
	struct qr_msg *m;

	if (q->draining || q->walk.nactive >= q->s->queuerun_active_limit)
		return;
	if (q->walk.left == NULL) {
		if (!q->rescan && (q->walk.next <= 0 || now < q->walk.next))
			return;
		q->rescan = 0;
		now = sweep_run(&q->sweep, &q->fn, now);
		walk_scan(q, now, &p);
	}
	while ((m = walk_next(q, now, &p)) != NULL)
		queuerun_take(q, m);
	walk_end(q, &p);
}

/* queuerun_finish - end the pass of every message with nothing left,
 * and release it */
static void
queuerun_finish(struct queuerun *q, double now)
{
	struct qr_msg *m, *next;

	for (m = q->walk.active; m != NULL; m = next) {
		next = m->next;
		if (!m->finished || m->batches > 0 || outcome_syncing(m))
			continue;
		outcome_finish(q, m, now);
		walk_release(q, m);
		/* Room again, or nothing in hand: a walk says whether more
		 * is due (and lets mj_queuerun -1 see that it is idle). */
		if (q->walk.nactive == 0)
			q->rescan = 1;
	}
}

/* queuerun_step - all that can be done now: outcomes, claims (walk,
 * expand, enter into the scheduler), finished messages, new batches */
int
queuerun_step(struct queuerun *q, int *timeout_ms)
{
	double now = clock_now(), wait, next, wake, cwake;
	struct qr_batch *b;

	queuerun_collect(q, now);
	queuerun_expanded(q);
	/* Another runner gave back a slot we were refused. */
	if (dest_wait_woken(q))
		sched_core_shared_retry(q->sched, now);
	/* Leases renewed and trimmed; refused ones asked again. */
	cwake = dest_cluster_tick(q, now);
	queuerun_claim(q, now);
	queuerun_finish(q, now);
	/* Batches for dead destinations end here, without a worker, so a
	 * message may be finished once more after dispatching.  A runner
	 * told to stop takes no new batch: what is in hand but not in
	 * flight stays for the next runner. */
	while (!q->draining && (b = dispatch_run(q, now)) != NULL)
		queuerun_outcome(q, b, now);
	/* A lease refused by this step's dispatch is asked for again at
	 * its retry time, not at the scheduler's fallback a second on. */
	if (q->cluster.retry > 0 && (cwake == 0 || q->cluster.retry < cwake))
		cwake = q->cluster.retry;
	outcome_sync(q);
	queuerun_finish(q, now);
	dest_wait_arm(q);
	*timeout_ms = -1;
	next = q->draining ? 0 : q->walk.next;
	if ((wake = dispatch_wakeup(q)) > 0 && (next == 0 || wake < next))
		next = wake;
	if (cwake > 0 && (next == 0 || cwake < next))
		next = cwake;
	if (q->rescan && !q->draining &&
	    q->walk.nactive < q->s->queuerun_active_limit)
		*timeout_ms = 0;
	else if (next > 0) {
		wait = ceil((next - now) * 1000);
		*timeout_ms = wait < 0	       ? 0
			      : wait > 3600000 ? 3600000
					       : (int)wait;
	}
	return 0;
}

/* queuerun_event_fd - readable when a worker has posted a result */
int
queuerun_event_fd(const struct queuerun *q)
{
	return deliver_pool_event_fd(q->pool);
}

/* queuerun_busy - messages in the active set */
int
queuerun_busy(const struct queuerun *q)
{
	return q->walk.nactive;
}

/* queuerun_idle - nothing claimed, and the last walk found nothing due */
int
queuerun_idle(const struct queuerun *q)
{
	return q->walk.nactive == 0 && q->walk.idle && !q->rescan &&
	       q->walk.left == NULL;
}

/* queuerun_done - messages whose pass has ended */
long
queuerun_done(const struct queuerun *q)
{
	return q->out.done;
}

/* queuerun_inflight - batches at the workers, and messages on the list
 * thread */
int
queuerun_inflight(const struct queuerun *q)
{
	return q->inflight + listwork_busy(q);
}

/* queuerun_drain - claim nothing and start no batch more; the batches
 * in flight end, the rest is released by queuerun_close */
void
queuerun_drain(struct queuerun *q)
{
	q->draining = 1;
}

/* queuerun_release_all - every message in hand marked no longer active
 * (synced), so the runner that takes it over sees no crash */
static void
queuerun_release_all(struct queuerun *q)
{
	struct qr_msg *m;

	for (m = q->walk.active; m != NULL; m = m->next) {
		/* a list thread's: its runner's exit counts as no fault */
		if (m->lm.st.fd == -1 || m->listwork)
			continue;
		if (spool_state_set_counts(
			&m->lm.st, m->lm.st.tries, m->lm.st.crashes, 0) == -1 ||
		    spool_state_sync(&m->lm.st) == -1)
			log_warn(
			    "%s: cannot update %s", m->lm.name, m->lm.st.path);
	}
}

/* queuerun_abandon - out of time to stop: leave the batches in flight
 * (their recipients stay pending, delivered again by the next runner)
 * and mark what is in hand no longer active; the process exits next,
 * without waiting for the workers (queuerun_close does nothing more) */
void
queuerun_abandon(struct queuerun *q)
{
	log_notice("stopping: %d batch(es) in flight abandoned, %d message(s) "
		   "released",
	    q->inflight, q->walk.nactive);
	queuerun_release_all(q);
	q->abandoned = 1;
}

/* queuerun_close - finish the batches in flight, release every claim:
 * recipients not yet tried stay pending for the next runner */
void
queuerun_close(struct queuerun *q)
{
	struct qr_msg *m;

	if (q == NULL || q->abandoned)
		return;
	q->draining = 1;
	dest_wait_stop(q); /* it pokes the pool */
	listwork_stop(q);  /* it pokes the pool too */
	queuerun_expanded(q);
	listwork_free(q);
	deliver_pool_stop(q->pool);
	deliver_sts_close();
	deliver_tlsrpt_close();
	queuerun_collect(q, clock_now());
	outcome_sync_wait(q);
	queuerun_finish(q, clock_now());
	queuerun_release_all(q);
	while ((m = q->walk.active) != NULL)
		walk_release(q, m);
	deliver_pool_close(q->pool);
	walk_forget(q);
	dispatch_free(q);
	dkim_sign_close(q->fn.dkim);
	dmarc_close(q->fn.dmarc);
	free(q);
}
