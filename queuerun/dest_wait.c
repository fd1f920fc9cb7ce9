/*
 * dest_wait.c - wake the runner when another runner gives a slot of the
 * shared destination table back.
 *
 * A runner refused by a destination's shared window (other runners fill
 * it) has nothing of its own to wait for: the slot frees in another
 * process.  So a thread of its own sleeps on the table's release count
 * (a futex in the shared mapping, spool_dest_wait) while the scheduler
 * has such destinations, and when the count moves it pokes the main
 * thread through the worker pool's event pipe; the main thread then asks
 * those destinations again (sched_core_shared_retry).  The thread sleeps
 * only while armed, and spool_dest_release wakes only when someone
 * sleeps, so a runner that is never refused pays nothing.  Without this
 * the scheduler still asks again after SCHED_SHARED_RETRY.
 */
#include <pthread.h>
#include <stdlib.h>

#include "dest_wait.h"
#include "sched.h"
#include "log.h"
#include "qr_runner.h"
#include "deliver.h"
#include "thread_spawn.h"

/* How long one futex sleep lasts before the thread looks at its flags. */
#define DEST_WAIT_SLICE_MS 200

struct dest_waiter {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int armed, stop;
	uint32_t seq; /* the release count the refusal saw */
	int woken;    /* the count moved since the last dest_wait_woken */
	struct spool_dest *sd;
	struct deliver_pool *pool;
};

/* dest_wait_main - sleep on the release count while armed */
static void *
dest_wait_main(void *arg)
{
	struct dest_waiter *w = arg;
	uint32_t seq;
	int moved;

	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		if (!w->armed) {
			pthread_cond_wait(&w->cv, &w->mu);
			continue;
		}
		seq = w->seq;
		pthread_mutex_unlock(&w->mu);
		moved = spool_dest_wait(w->sd, seq, DEST_WAIT_SLICE_MS) == 0;
		pthread_mutex_lock(&w->mu);
		if (moved && w->armed) {
			w->armed = 0;
			w->woken = 1;
			deliver_pool_poke(w->pool);
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* dest_wait_start - the thread, made at the first refusal */
static struct dest_waiter *
dest_wait_start(struct queuerun *q)
{
	struct dest_waiter *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->sd = &q->share.table;
	w->pool = q->pool;
	/* Signals are the main thread's, as for the workers. */
	if (thread_spawn(&w->thread, dest_wait_main, w) != 0) {
		log_warnx("cannot start the shared table's waiter; refused "
			  "destinations are asked again every %.1fs",
		    SCHED_SHARED_RETRY);
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		free(w);
		return NULL;
	}
	return w;
}

/* dest_wait_arm - after a dispatch: while the scheduler has destinations
 * refused by the shared window, sleep on the release count they saw */
void
dest_wait_arm(struct queuerun *q)
{
	struct dest_waiter *w;

	if (q->share.table.fd == -1 || q->pool == NULL ||
	    !sched_core_shared_waiting(q->sched))
		return;
	/* Without the thread the scheduler's own retry still comes; it is
	 * not tried again (nor its failure logged again). */
	if (q->wait.waiter == NULL &&
	    (q->wait.failed || (q->wait.waiter = dest_wait_start(q)) == NULL)) {
		q->wait.failed = 1;
		return;
	}
	w = q->wait.waiter;
	pthread_mutex_lock(&w->mu);
	if (!w->armed && q->wait.seq_set) {
		w->armed = 1;
		w->seq = q->wait.seq;
		q->wait.seq_set = 0;
		pthread_cond_signal(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
}

/* dest_wait_refused - the table refused a delivery (dest_share_admit,
 * under the table's lock): the first refusal since the thread last armed
 * gives the release count to sleep on, for a slot given back after it
 * may be the one */
void
dest_wait_refused(struct queuerun *q, const struct spool_dest *sd)
{
	if (q->wait.seq_set)
		return;
	q->wait.seq = spool_dest_seq(sd);
	q->wait.seq_set = 1;
}

/* dest_wait_woken - a slot was given back since the last call */
int
dest_wait_woken(struct queuerun *q)
{
	struct dest_waiter *w = q->wait.waiter;
	int woken;

	if (w == NULL)
		return 0;
	pthread_mutex_lock(&w->mu);
	woken = w->woken;
	w->woken = 0;
	pthread_mutex_unlock(&w->mu);
	return woken;
}

/* dest_wait_stop - end the thread (before the table is unmapped) */
void
dest_wait_stop(struct queuerun *q)
{
	struct dest_waiter *w = q->wait.waiter;

	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
	q->wait.waiter = NULL;
}
