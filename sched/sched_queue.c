/*
 * sched_queue.c - per-destination queues and the Postfix 2.5 concurrency
 * feedback (SCHEDULER_README, "Pseudocode for the Postfix 2.5
 * concurrency scheduler").
 *
 * A queue is one destination (nexthop) within a transport.  Its window is
 * the number of deliveries it may have in flight.  Deliveries that end
 * without a connection or handshake failure give positive feedback g(N),
 * which raises the window by one at the END of each run of 1/g(N) events;
 * failures give negative feedback f(N), which lowers it by one at the START
 * of each run of 1/f(N) events, so overload is corrected at once.  Dead
 * destination detection is separate: after failed_cohort_limit pseudo-
 * cohorts of failures the destination is dead, its waiting entries are
 * deferred, and after minimal_backoff_time one probe delivery is allowed;
 * any delivery that succeeds while it is dead revives it.
 *
 * Peers whose queue cannot take another delivery are parked on the queue
 * rather than skipped on every selection, and are put back on their jobs'
 * ready lists when the queue has room again, so a saturated destination
 * costs nothing per selection.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_core.h"
#include "sched_job.h"
#include "sched_queue.h"
#include "sched_rcpt.h"
#include "sched_select.h"

/* Floating point tolerance: 5 x 0.2 must count as one whole step. */
#define EPS 1e-9

/* sched_queue_eq - hash callback: does this queue have that name? */

static int
sched_queue_eq(const struct htab_node *n, const void *key)
{
	return strcmp(((const struct sched_queue *)(const void *)n)->name,
		   key) == 0;
}

/* sched_queue_find - the queue for a nexthop, or NULL */

struct sched_queue *
sched_queue_find(struct sched_transport *t, const char *name)
{
	return (struct sched_queue *)(void *)htab_find(
	    &t->queues, htab_str(name), sched_queue_eq, name);
}

/* sched_queue_obtain - find or create the queue for a nexthop */

struct sched_queue *
sched_queue_obtain(struct sched_transport *t, const char *name)
{
	struct sched_queue *q;
	size_t len = strlen(name);

	if ((q = sched_queue_find(t, name)) != NULL)
		return q;
	if ((q = sched_core_alloc(t->sched, sizeof(*q) + len + 1)) == NULL)
		return NULL;
	memset(q, 0, sizeof(*q));
	memcpy(q->name, name, len + 1);
	q->transport = t;
	q->ds.window = t->p.initial_concurrency;
	SCHED_LIST_INIT(q->peers);
	SCHED_LIST_INIT(q->parked);
	q->hnode.hash = htab_str(name);
	if (htab_insert(&t->queues, &q->hnode) == -1) {
		sched_core_release(t->sched, q, sizeof(*q) + len + 1);
		return NULL;
	}
	return q;
}

/* sched_queue_idle - free a queue that has nothing left worth keeping */

void
sched_queue_idle(struct sched_queue *q, double now)
{
	/*
	 * Like Postfix, forget an idle destination, so memory follows the
	 * destinations in use, not all ever seen.  Keep it while it is dead,
	 * rate limited, waiting for a wakeup (or named by a stale item of
	 * the wakeup heap, which would otherwise point at freed memory) or
	 * configured on its own.
	 */
	if (q->peers.head != NULL || q->busy > 0 || q->ds.dead ||
	    q->limit > 0 || q->wake_at != 0 || q->wake_refs > 0 ||
	    q->ds.rate_tat > now)
		return;
	htab_remove(&q->transport->queues, &q->hnode);
	sched_core_release(
	    q->transport->sched, q, sizeof(*q) + strlen(q->name) + 1);
}

/* sched_queue_limit - the client-side concurrency limit, 0 for none */

static int
sched_queue_limit(const struct sched_queue *q)
{
	return q->limit ? q->limit : q->transport->p.concurrency_limit;
}

/* sched_queue_dead_now - dead and not yet due for a probe */

int
sched_queue_dead_now(const struct sched_queue *q, double now)
{
	return q->ds.dead && now < q->ds.dead_until;
}

/* sched_queue_accepts - may one more delivery start now? */

int
sched_queue_accepts(struct sched_queue *q, double now)
{
	/* A dead destination gets one probe at a time once it is due. */
	if (q->ds.dead)
		return now >= q->ds.dead_until && q->busy == 0;
	if (q->ds.window <= q->busy)
		return 0;
	if (q->ds.rate_tat > now + EPS) {
		sched_core_wake(q->transport->sched, q, q->ds.rate_tat);
		return 0;
	}
	return 1;
}

/* sched_rate_interval - seconds between starts, 0 without a rate limit */

static double
sched_rate_interval(const struct sched_params *p)
{
	return p->rate_count > 0 ? p->rate_period / p->rate_count : 0;
}

/* sched_rate_take - the rate rule (sched.h): a theoretical arrival time
 * (GCRA without burst tolerance) */

int
sched_rate_take(double *tat, double now, double interval)
{
	if (interval <= 0)
		return 1;
	if (*tat > now + EPS)
		return 0;
	*tat = (*tat > now ? *tat : now) + interval;
	return 1;
}

/* sched_queue_selected - account for a delivery that starts now */

void
sched_queue_selected(struct sched_queue *q, double now)
{
	const struct sched_params *p = &q->transport->p;

	q->busy++;
	q->transport->busy++;
	sched_rate_take(&q->ds.rate_tat, now, sched_rate_interval(p));
}

/* sched_queue_debug - one feedback debug line with every variable */

static void
sched_queue_debug(struct sched_queue *q, const char *what, double feedback)
{
	if (!q->transport->p.feedback_debug)
		return;
	sched_core_log(q->transport->sched,
	    "feedback %s: dest=%s feedback=%.4f window=%d busy=%d "
	    "success=%.4f failure=%.4f fail_cohorts=%.4f%s",
	    what, q->name, feedback, q->ds.window, q->busy, q->ds.success,
	    q->ds.failure, q->ds.fail_cohorts, q->ds.dead ? " dead" : "");
}

/* sched_queue_positive - after success: the pseudocode, plus safety */

static void
sched_queue_positive(struct sched_queue *q)
{
	const struct sched_params *p = &q->transport->p;
	int limit = sched_queue_limit(q);
	double fb;

	q->ds.fail_cohorts = 0;
	if (q->ds.dead) {
		/* A delivery got through: the destination is alive again. */
		q->ds.dead = 0;
		q->ds.dead_until = 0;
		q->ds.window = p->initial_concurrency;
		q->ds.success = q->ds.failure = 0;
		sched_queue_debug(q, "revive", 0);
		return;
	}
	if (limit > 0 && q->ds.window >= limit)
		return;
	/*
	 * Safety: without deliveries in flight to confirm it, a larger window
	 * is a guess, and negative feedback would come too late to undo it.
	 */
	if (q->ds.window >= q->busy + q->others + p->initial_concurrency) {
		sched_queue_debug(q, "positive skipped (safety)", 0);
		return;
	}
	fb = sched_params_feedback(&p->pos_feedback, q->ds.window);
	q->ds.success += fb;
	while (q->ds.success >= 1 - EPS) {
		q->ds.window += 1;
		q->ds.failure = 0;
		q->ds.success -= 1;
	}
	if (q->ds.success < 0)
		q->ds.success = 0;
	if (limit > 0 && q->ds.window > limit)
		q->ds.window = limit;
	sched_queue_debug(q, "positive", fb);
}

/* sched_queue_die - declare the destination dead and defer its entries */

static void
sched_queue_die(struct sched_queue *q, double now)
{
	q->ds.dead = 1;
	q->ds.window = 0;
	q->ds.dead_until = now + q->transport->p.minimal_backoff_time;
	sched_rcpt_defer_todo(q);
	sched_queue_debug(q, "dead", 0);
}

/* sched_queue_negative - after connection or handshake failure */

static void
sched_queue_negative(struct sched_queue *q, double now)
{
	const struct sched_params *p = &q->transport->p;
	double fb;

	if (q->ds.dead) {
		/* A failed probe suspends it again; stale failures do not. */
		if (now >= q->ds.dead_until)
			sched_queue_die(q, now);
		return;
	}
	q->ds.fail_cohorts += 1.0 / q->ds.window;
	if (p->failed_cohort_limit > 0 &&
	    q->ds.fail_cohorts >= p->failed_cohort_limit - EPS) {
		sched_queue_die(q, now);
		return;
	}
	/* Reverse hysteresis: step down at the start of the run. */
	fb = sched_params_feedback(&p->neg_feedback, q->ds.window);
	q->ds.failure -= fb;
	while (q->ds.failure < -EPS) {
		q->ds.window -= 1;
		q->ds.success = 0;
		q->ds.failure += 1;
	}
	if (q->ds.window < 1)
		q->ds.window = 1;
	sched_queue_debug(q, "negative", fb);
}

/* sched_queue_done - feedback from a finished delivery, then release it */

void
sched_queue_done(struct sched_queue *q, enum sched_outcome outcome, double now)
{
	/* Feedback sees the delivery still busy, as Postfix's does. */
	if (outcome == SCHED_CONN_FAIL)
		sched_queue_negative(q, now);
	else
		sched_queue_positive(q);
	q->busy--;
	q->transport->busy--;
	if (q->parked.head != NULL && sched_queue_accepts(q, now))
		sched_queue_unpark(q);
}

/* sched_queue_unpark - the queue has room: its peers may be selected */

void
sched_queue_unpark(struct sched_queue *q)
{
	struct sched_transport *t = q->transport;
	struct sched_peer *peer;

	if (q->parked.head == NULL)
		return;
	while ((peer = q->parked.head) != NULL) {
		SCHED_LIST_UNLINK(q->parked, peer, rlink);
		peer->where = PEER_IDLE;
		sched_select_ready(peer);
		sched_job_unblock(peer->job);
	}
	/*
	 * A job before the current one may be selectable again; start over
	 * from the head of the job list, as Postfix's blocker update does.
	 */
	t->job_current = t->job_list.head;
	t->cand_cache_current = NULL;
}

/* sched_queue_state - copy out the state for status and mirroring */

void
sched_queue_state(const struct sched_queue *q, struct sched_dest_state *st)
{
	st->ds = q->ds;
	st->busy = q->busy;
	st->todo = q->todo;
	st->limit = sched_queue_limit(q);
}

/* sched_queue_load - adopt the state shared with other runners */

void
sched_queue_load(
    struct sched_queue *q, const struct sched_dest_state *st, double now)
{
	int limit = sched_queue_limit(q), was_dead = q->ds.dead;
	double was_until = q->ds.dead_until, tat = q->ds.rate_tat;

	q->ds = st->ds;
	q->others = st->busy > 0 ? st->busy : 0;
	if (tat > q->ds.rate_tat)
		q->ds.rate_tat = tat;
	if (st->ds.dead) {
		/* Another runner found it dead: no connection attempt here
		 * either until its probe time. */
		if (!was_dead || was_until != st->ds.dead_until)
			sched_queue_debug(q, "shared dead", 0);
		q->ds.dead = 1;
		q->ds.window = 0;
		if (now < q->ds.dead_until)
			sched_rcpt_defer_todo(q);
		return;
	}
	q->ds.dead = 0;
	q->ds.dead_until = 0;
	/* Runners may disagree on limits: ours holds for our deliveries. */
	if (limit > 0 && q->ds.window > limit)
		q->ds.window = limit;
	if (q->ds.window < 1)
		q->ds.window = 1;
}

/* sched_queue_admit - the runner's shared-window check before a start */

int
sched_queue_admit(struct sched_queue *q, double now)
{
	struct sched *s = q->transport->sched;
	struct sched_dest_state st;
	int ok;

	if (s->cb.admit == NULL)
		return 1;
	memset(&st, 0, sizeof(st));
	st.ds.window = -1;
	st.rate_interval = sched_rate_interval(&q->transport->p);
	st.limit = sched_queue_limit(q);
	ok = s->cb.admit(s->cb.arg, q->transport->name, q->name, now, &st);
	if (st.ds.window >= 0)
		sched_queue_load(q, &st, now);
	/*
	 * Admitted: the runner holds a shared slot, which it only grants
	 * below the shared window (or for the one probe of a dead
	 * destination) and within the shared rate, so the delivery starts
	 * whatever our copy says.  Refused for the rate: woken when it has
	 * room (sched_queue_accepts sees the shared time now); for the
	 * window: when another runner's delivery ends.
	 */
	if (ok)
		return 1;
	if (sched_queue_accepts(q, now)) {
		/* Woken when another runner gives a slot back
		 * (sched_core_shared_retry), at the latest after this. */
		sched_core_wake(s, q, now + SCHED_SHARED_RETRY);
		q->shared_wait = 1;
	}
	return 0;
}
