/*
 * listwork.c - two threads for the first processing of list mail, so
 * that neither a list lock nor a long read stops the main thread's
 * deliveries.
 *
 * The edit lane takes list-management mail: commands (subscribe,
 * confirm ...), owner mail and bounces take the list's subscribers or
 * bounces lock, which an administrator may hold for as long as an edit
 * by hand takes (docs/lists.md: flock subscribers.lock vi subscribers);
 * lockedit waits for it up to LOCKEDIT_WAIT_MS.  One thread, so list
 * edits of one runner stay in order.
 *
 * The post lane takes posts: the posting policy reads the whole
 * subscribers file for a non-member, and the snapshot reads it again for
 * the state file, which for a large list is most of a second of work.
 * Posts take no list lock, so they have a thread of their own and never
 * wait behind an edit that waits for one; they are taken one at a time,
 * so a post waits for the reading of the posts before it.
 *
 * The main thread hands over a claimed message and does not touch it
 * until it comes back (listwork_done): a thread works on the message's
 * own files, the spool and the lists only, never on the scheduler or the
 * active set.  A lane's thread is started at its first submit and all
 * are stopped (joined) at close, after the message in hand is finished:
 * lockedit's wait is bounded.
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

struct listwork;

/* One lane: its thread and the jobs waiting for it. */
struct listwork_thread {
	struct listwork *lw;
	pthread_t thread;
	int started;
	struct listwork_job *todo; /* FIFO */
};

struct listwork {
	struct queuerun *q;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* broadcast: a job for some lane, or stop */
	struct listwork_thread lane[LISTWORK_LANES];
	struct listwork_job *done; /* FIFO, of all lanes */
	int busy;		   /* jobs submitted and not yet collected */
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

/* listwork_main - a lane's thread: one job at a time, its result posted
 * and the main thread woken through the worker pool's pipe */
static void *
listwork_main(void *arg)
{
	struct listwork_thread *ln = arg;
	struct listwork *lw = ln->lw;
	struct listwork_job *j;

	pthread_mutex_lock(&lw->mu);
	for (;;) {
		while (ln->todo == NULL && !lw->stop)
			pthread_cond_wait(&lw->cv, &lw->mu);
		if ((j = ln->todo) == NULL)
			break;
		ln->todo = j->next;
		pthread_mutex_unlock(&lw->mu);
		j->result = j->fn(lw->q, j->m);
		pthread_mutex_lock(&lw->mu);
		listwork_append(&lw->done, j);
		deliver_pool_poke(lw->q->pool);
	}
	pthread_mutex_unlock(&lw->mu);
	return NULL;
}

/* listwork_open - the queues, at the first submit */
static int
listwork_open(struct queuerun *q)
{
	struct listwork *lw;
	int i;

	if ((lw = calloc(1, sizeof(*lw))) == NULL)
		return -1;
	lw->q = q;
	for (i = 0; i < LISTWORK_LANES; i++)
		lw->lane[i].lw = lw;
	pthread_mutex_init(&lw->mu, NULL);
	pthread_cond_init(&lw->cv, NULL);
	q->listwork = lw;
	return 0;
}

/* listwork_submit - run fn(q, m) on the lane's thread; -1 when it
 * cannot be (the caller then runs it itself) */
int
listwork_submit(struct queuerun *q, struct qr_msg *m, enum listwork_lane lane,
    listwork_fn *fn)
{
	struct listwork_thread *ln;
	struct listwork_job *j;
	struct listwork *lw;

	if (q->listwork == NULL && listwork_open(q) == -1)
		return -1;
	lw = q->listwork;
	ln = &lw->lane[lane];
	/* Only the main thread starts lanes: no lock needed for started. */
	if (!ln->started) {
		if (pthread_create(&ln->thread, NULL, listwork_main, ln) != 0) {
			log_warn("cannot start a list thread");
			return -1;
		}
		ln->started = 1;
	}
	if ((j = calloc(1, sizeof(*j))) == NULL)
		return -1;
	j->m = m;
	j->fn = fn;
	pthread_mutex_lock(&lw->mu);
	listwork_append(&ln->todo, j);
	lw->busy++;
	pthread_cond_broadcast(&lw->cv);
	pthread_mutex_unlock(&lw->mu);
	return 0;
}

/* listwork_done - a message a thread is finished with (its result in
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

/* listwork_busy - messages on the threads, or done and not collected */
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

/* listwork_stop - finish the queues and join the threads; the results
 * stay for listwork_done */
void
listwork_stop(struct queuerun *q)
{
	struct listwork *lw = q->listwork;
	int i;

	if (lw == NULL || lw->stop)
		return;
	pthread_mutex_lock(&lw->mu);
	lw->stop = 1;
	pthread_cond_broadcast(&lw->cv);
	pthread_mutex_unlock(&lw->mu);
	for (i = 0; i < LISTWORK_LANES; i++)
		if (lw->lane[i].started)
			pthread_join(lw->lane[i].thread, NULL);
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
