/*
 * listwork.c - one thread for the first processing of list-management
 * mail: commands (subscribe, confirm ...), owner mail and bounces take
 * the list's subscribers or bounces lock, which an administrator may
 * hold for as long as an edit by hand takes (README: flock
 * subscribers.lock vi subscribers); lockedit waits for it up to
 * LOCKEDIT_WAIT_MS.  On the main thread that wait stopped every
 * delivery of the runner; here only this queue waits.
 *
 * The main thread hands over a claimed message and does not touch it
 * until it comes back (listwork_done): the thread works on the message's
 * own files, the spool and the lists only, never on the scheduler or the
 * active set.  One thread, so list edits of one runner stay in order.
 * It is started at the first submit and stopped (joined) at close,
 * after the message in hand is finished: lockedit's wait is bounded.
 */
#include <pthread.h>
#include <stdlib.h>

#include "listwork.h"
#include "log.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "deliver.h"

struct listwork_job {
	struct listwork_job *next;
	struct qr_msg *m;
	listwork_fn *fn;
	int result;
};

struct listwork {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct listwork_job *todo, *done; /* FIFO each */
	int busy; /* jobs submitted and not yet collected */
	int stop;
};

/* listwork_append - add j at the end of a FIFO */
static void
listwork_append(struct listwork_job **head, struct listwork_job *j)
{
	j->next = NULL;
	while (*head != NULL)
		head = &(*head)->next;
	*head = j;
}

/* listwork_main - the thread: one job at a time, its result posted and
 * the main thread woken through the worker pool's pipe */
static void *
listwork_main(void *arg)
{
	struct queuerun *q = arg;
	struct listwork *lw = q->listwork;
	struct listwork_job *j;

	pthread_mutex_lock(&lw->mu);
	for (;;) {
		while (lw->todo == NULL && !lw->stop)
			pthread_cond_wait(&lw->cv, &lw->mu);
		if ((j = lw->todo) == NULL)
			break;
		lw->todo = j->next;
		pthread_mutex_unlock(&lw->mu);
		j->result = j->fn(q, j->m);
		pthread_mutex_lock(&lw->mu);
		listwork_append(&lw->done, j);
		deliver_pool_poke(q->pool);
	}
	pthread_mutex_unlock(&lw->mu);
	return NULL;
}

/* listwork_start - the thread and its queues, at the first submit */
static int
listwork_start(struct queuerun *q)
{
	struct listwork *lw;

	if ((lw = calloc(1, sizeof(*lw))) == NULL)
		return -1;
	pthread_mutex_init(&lw->mu, NULL);
	pthread_cond_init(&lw->cv, NULL);
	q->listwork = lw;
	if (pthread_create(&lw->thread, NULL, listwork_main, q) != 0) {
		pthread_mutex_destroy(&lw->mu);
		pthread_cond_destroy(&lw->cv);
		free(lw);
		q->listwork = NULL;
		return -1;
	}
	return 0;
}

/* listwork_submit - run fn(q, m) on the thread; -1 when it cannot be
 * (the caller then runs it itself) */
int
listwork_submit(struct queuerun *q, struct qr_msg *m, listwork_fn *fn)
{
	struct listwork_job *j;
	struct listwork *lw;

	if (q->listwork == NULL && listwork_start(q) == -1) {
		log_warn("cannot start the list-management thread");
		return -1;
	}
	if ((j = calloc(1, sizeof(*j))) == NULL)
		return -1;
	j->m = m;
	j->fn = fn;
	lw = q->listwork;
	pthread_mutex_lock(&lw->mu);
	listwork_append(&lw->todo, j);
	lw->busy++;
	pthread_cond_signal(&lw->cv);
	pthread_mutex_unlock(&lw->mu);
	return 0;
}

/* listwork_done - a message the thread is finished with (its result in
 * *result), or NULL */
struct qr_msg *
listwork_done(struct queuerun *q, int *result)
{
	struct listwork *lw = q->listwork;
	struct listwork_job *j;
	struct qr_msg *m;

	if (lw == NULL)
		return NULL;
	pthread_mutex_lock(&lw->mu);
	if ((j = lw->done) != NULL) {
		lw->done = j->next;
		lw->busy--;
	}
	pthread_mutex_unlock(&lw->mu);
	if (j == NULL)
		return NULL;
	m = j->m;
	*result = j->result;
	free(j);
	return m;
}

/* listwork_busy - messages on the thread, or done and not collected */
int
listwork_busy(const struct queuerun *q)
{
	struct listwork *lw = q->listwork;
	int n;

	if (lw == NULL)
		return 0;
	pthread_mutex_lock(&lw->mu);
	n = lw->busy;
	pthread_mutex_unlock(&lw->mu);
	return n;
}

/* listwork_stop - finish the queue and join the thread; the results
 * stay for listwork_done */
void
listwork_stop(struct queuerun *q)
{
	struct listwork *lw = q->listwork;

	if (lw == NULL || lw->stop)
		return;
	pthread_mutex_lock(&lw->mu);
	lw->stop = 1;
	pthread_cond_signal(&lw->cv);
	pthread_mutex_unlock(&lw->mu);
	pthread_join(lw->thread, NULL);
}

/* listwork_free - after listwork_stop and the last listwork_done */
void
listwork_free(struct queuerun *q)
{
	struct listwork *lw = q->listwork;

	if (lw == NULL)
		return;
	pthread_mutex_destroy(&lw->mu);
	pthread_cond_destroy(&lw->cv);
	free(lw);
	q->listwork = NULL;
}
