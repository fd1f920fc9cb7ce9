/*
 * worker.c - the pool of delivery threads.
 *
 * The main thread submits batches; a worker takes one, runs the blocking
 * transport on it, and posts it back on the done list with one byte on
 * the event pipe (queuerun_event_fd), so the main thread never blocks on
 * the network or a child process.  Threads are started on demand up to
 * the limit and keep running; an idle worker wakes once a second to close
 * SMTP sessions that have outlived smtp_connection_cache_time.  Workers
 * block every signal: handlers belong to the main thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "deliver_local.h"
#include "deliver_smtp.h"
#include "log.h"
#include "qr_batch.h"
#include "worker.h"

struct worker_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct qr_batch *todo, *todo_tail;
	struct qr_batch *done, *done_tail;
	pthread_t *threads;
	int nthreads, max, idle, stop;
	int pipe[2];
};

/* worker_run - deliver one batch with its transport */
static void
worker_run(struct qr_batch *b)
{
	b->t_start = clock_now();
	switch (b->transport) {
	case QR_SMTP:
		deliver_smtp(b);
		break;
	case QR_PIPE:
		deliver_pipe(b);
		break;
	case QR_MAILDIR:
		deliver_maildir(b);
		break;
	default:
		deliver_discard(b);
		break;
	}
	b->t_done = clock_now();
}

/* worker_main - take batches until told to stop */
static void *
worker_main(void *arg)
{
	struct worker_pool *p = arg;
	struct qr_batch *b;
	struct timespec ts;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->todo == NULL && !p->stop) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			p->idle++;
			int r = pthread_cond_timedwait(&p->cv, &p->mu, &ts);
			p->idle--;
			if (r == ETIMEDOUT) {
				pthread_mutex_unlock(&p->mu);
				deliver_smtp_reap(clock_now(), 0);
				pthread_mutex_lock(&p->mu);
			}
		}
		if (p->todo == NULL)
			break; /* stopping, and nothing left */
		b = p->todo;
		if ((p->todo = b->next) == NULL)
			p->todo_tail = NULL;
		b->next = NULL;
		pthread_mutex_unlock(&p->mu);
		worker_run(b);
		pthread_mutex_lock(&p->mu);
		if (p->done_tail != NULL)
			p->done_tail->next = b;
		else
			p->done = b;
		p->done_tail = b;
		/* Full pipe: the main thread has wake-ups pending anyway. */
		(void)!write(p->pipe[1], "", 1);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* worker_open - an empty pool of up to max threads */
struct worker_pool *
worker_open(int max, char *err, size_t errlen)
{
	struct worker_pool *p;

	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->threads = calloc((size_t)max, sizeof(pthread_t))) == NULL) {
		free(p);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (pipe2(p->pipe, O_CLOEXEC | O_NONBLOCK) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		free(p->threads);
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->max = max;
	return p;
}

/* worker_event_fd - readable when a batch is done */
int
worker_event_fd(const struct worker_pool *p)
{
	return p->pipe[0];
}

/* worker_spawn - one more thread, with every signal blocked */
static void
worker_spawn(struct worker_pool *p)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&p->threads[p->nthreads], NULL, worker_main, p) == 0)
		p->nthreads++;
	else
		log_warnx("cannot start a delivery thread");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* worker_submit - queue a batch; start a thread if none is idle */
void
worker_submit(struct worker_pool *p, struct qr_batch *b)
{
	pthread_mutex_lock(&p->mu);
	b->next = NULL;
	if (p->todo_tail != NULL)
		p->todo_tail->next = b;
	else
		p->todo = b;
	p->todo_tail = b;
	if (p->idle == 0 && p->nthreads < p->max)
		worker_spawn(p);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* worker_poke - wake the main thread with no batch (dest_wait.c) */
void
worker_poke(struct worker_pool *p)
{
	(void)!write(p->pipe[1], "", 1);
}

/* worker_collect - one finished batch, or NULL; drains the pipe first */
struct qr_batch *
worker_collect(struct worker_pool *p)
{
	struct qr_batch *b;
	char buf[256];

	while (read(p->pipe[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&p->mu);
	if ((b = p->done) != NULL) {
		if ((p->done = b->next) == NULL)
			p->done_tail = NULL;
		b->next = NULL;
	}
	pthread_mutex_unlock(&p->mu);
	return b;
}

/* worker_stop - let the workers finish what they hold, then join them;
 * the batches they finish stay for worker_collect */
void
worker_stop(struct worker_pool *p)
{
	int i;

	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	p->nthreads = 0;
	deliver_smtp_reap(0, 1);
}

/* worker_close - stop and free the pool */
void
worker_close(struct worker_pool *p)
{
	if (p == NULL)
		return;
	worker_stop(p);
	close(p->pipe[0]);
	close(p->pipe[1]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->threads);
	free(p);
}
