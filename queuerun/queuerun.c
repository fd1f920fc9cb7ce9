/*
 * queuerun.c - the runner's work as queuerun.h offers it to the protocol
 * loop: open, step, the event fd, drain, close.
 *
 * A step does, without blocking: take the results the workers posted,
 * finish the messages that have nothing left in flight, walk the spool
 * when asked to (or when a deferred message has come due), and hand out
 * batches (dispatch.c).  The only slow part is the walk and a first
 * expansion, both bounded by the active limit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log.h"
#include "moderate.h"
#include "queuerun_impl.h"

/* queuerun_params - the delivery parameters of a transport */
const struct delivery_params *
queuerun_params(const struct queuerun *q, enum qr_transport t)
{
	return &q->dc.transport[t];
}

/* queuerun_open - read the delivery sections, start the pool */
struct queuerun *
queuerun_open(
    const struct settings *s, const char *config, char *err, size_t errlen)
{
	struct settings scratch;
	struct queuerun *q;

	if ((q = calloc(1, sizeof(*q))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	q->s = s;
	delivery_conf_init(&q->dc);
	/* The caller's settings_load skipped the delivery sections; read
	 * the file again for them, with their checks. */
	if (settings_load(&scratch, config ? config : SETTINGS_DEFAULT_FILE,
		config == NULL, delivery_conf_section, &q->dc, err,
		errlen) == -1 ||
	    delivery_conf_finish(&q->dc, err, errlen) == -1) {
		delivery_conf_free(&q->dc);
		free(q);
		return NULL;
	}
	if (dispatch_open(q, err, errlen) == -1 ||
	    (q->pool = worker_open((int)q->dc.base.threads, err, errlen)) ==
		NULL) {
		dispatch_free(q);
		delivery_conf_free(&q->dc);
		free(q);
		return NULL;
	}
	q->rescan = 1;
	return q;
}

/* queuerun_rescan - walk again at the next step */
void
queuerun_rescan(struct queuerun *q)
{
	q->rescan = 1;
}

/* queuerun_collect - every result the workers have posted */
static void
queuerun_collect(struct queuerun *q, double now)
{
	struct qr_batch *b;

	while ((b = worker_collect(q->pool)) != NULL)
		outcome_batch(q, b, now);
}

/* queuerun_finish - end the pass of every message with nothing left */
static void
queuerun_finish(struct queuerun *q, double now)
{
	struct qr_msg *m, *next;

	for (m = q->active; m != NULL; m = next) {
		next = m->next;
		if (m->finished && m->batches == 0)
			outcome_finish(q, m, now);
	}
}

/* queuerun_step - all that can be done now */
int
queuerun_step(struct queuerun *q, int *timeout_ms)
{
	double now = deliver_now(), wait, next, wake;

	queuerun_collect(q, now);
	/* Another runner gave back a slot we were refused. */
	if (dest_wait_woken(q))
		sched_core_shared_retry(q->sched, now);
	if (!q->draining && q->nactive < q->s->queuerun_active_limit) {
		if (q->walk_left != NULL)
			walk_more(q, now);
		else if (q->rescan ||
			 (q->next_walk > 0 && now >= q->next_walk)) {
			q->rescan = 0;
			moderate_expire(q, (time_t)now);
			walk_claim(q, now);
		}
	}
	queuerun_finish(q, now);
	/* Batches for dead destinations end here, without a worker, so a
	 * message may be finished once more after dispatching. */
	if (dispatch_run(q, now) >= 0)
		queuerun_finish(q, now);
	dest_wait_arm(q);
	*timeout_ms = -1;
	next = q->draining ? 0 : q->next_walk;
	if ((wake = dispatch_wakeup(q)) > 0 && (next == 0 || wake < next))
		next = wake;
	if (q->rescan && !q->draining &&
	    q->nactive < q->s->queuerun_active_limit)
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
	return worker_event_fd(q->pool);
}

/* queuerun_busy - messages in the active set */
int
queuerun_busy(const struct queuerun *q)
{
	return q->nactive;
}

/* queuerun_idle - nothing claimed, and the last walk found nothing due */
int
queuerun_idle(const struct queuerun *q)
{
	return q->nactive == 0 && q->idle_walk && !q->rescan &&
	       q->walk_left == NULL;
}

/* queuerun_done - messages whose pass has ended */
long
queuerun_done(const struct queuerun *q)
{
	return q->done;
}

/* queuerun_drain - claim nothing more; what is in hand goes on */
void
queuerun_drain(struct queuerun *q)
{
	q->draining = 1;
}

/* queuerun_msg_free - free a message and drop its claim */
void
queuerun_msg_free(struct queuerun *q, struct qr_msg *m)
{
	(void)q;
	fail_log_close(m);
	free(m->reader);
	if (m->st.fd != -1)
		spool_state_close(&m->st);
	if (m->datafd != -1)
		close(m->datafd);
	if (m->fd != -1)
		close(m->fd); /* the claim goes with the last descriptor */
	free(m);
}

/* queuerun_close - finish the batches in flight, release every claim:
 * recipients not yet tried stay pending for the next runner */
void
queuerun_close(struct queuerun *q)
{
	struct qr_msg *m;

	if (q == NULL)
		return;
	q->draining = 1;
	dest_wait_stop(q); /* it pokes the pool */
	worker_stop(q->pool);
	queuerun_collect(q, deliver_now());
	while ((m = q->active) != NULL) {
		if (m->st.fd != -1) {
			spool_state_set_counts(
			    &m->st, m->st.tries, m->st.crashes, 0);
			spool_state_sync(&m->st);
		}
		walk_release(q, m);
	}
	worker_close(q->pool);
	walk_forget(q);
	dispatch_free(q);
	delivery_conf_free(&q->dc);
	free(q);
}
