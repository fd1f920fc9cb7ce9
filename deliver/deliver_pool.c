/*
 * deliver_pool.c - the pool of delivery threads.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "deliver_local.h"
#include "deliver_smtp.h"
#include "log.h"
#include "deliver_batch.h"
#include "deliver_pool.h"
#include "thread_spawn.h"

struct deliver_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct deliver_batch *todo, *todo_tail;
	struct deliver_batch *done, *done_tail;
	pthread_t *threads;
	int nthreads, max, idle, stop;
	int pipe[2];
};

/* deliver_pool_run - deliver one batch with its transport */
static void
deliver_pool_run(struct deliver_batch *b)
{
	b->t_start = clock_now();
	switch (b->transport) {
	case DELIVER_SMTP:
		deliver_smtp(b);
		break;
	case DELIVER_PIPE:
		deliver_pipe(b);
		break;
	case DELIVER_MAILDIR:
		deliver_maildir(b);
		break;
	default:
		deliver_discard(b);
		break;
	}
	b->t_done = clock_now();
}

/* deliver_pool_main - take batches until told to stop */
static void *
deliver_pool_main(void *arg)
{
	struct deliver_pool *p = arg;
	struct deliver_batch *b;
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
		deliver_pool_run(b);
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

/* deliver_pool_open - an empty pool of up to max threads */
struct deliver_pool *
deliver_pool_open(int max, char *err, size_t errlen)
{
	struct deliver_pool *p;

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

/* deliver_pool_event_fd - readable when a batch is done */
int
deliver_pool_event_fd(const struct deliver_pool *p)
{
	return p->pipe[0];
}

/* deliver_pool_spawn - one more thread, with every signal blocked */
static void
deliver_pool_spawn(struct deliver_pool *p)
{
	if (thread_spawn(&p->threads[p->nthreads], deliver_pool_main, p) == 0)
		p->nthreads++;
	else
		log_warnx("cannot start a delivery thread");
}

/* deliver_pool_submit - queue a batch; start a thread if none is idle */
void
deliver_pool_submit(struct deliver_pool *p, struct deliver_batch *b)
{
	pthread_mutex_lock(&p->mu);
	b->next = NULL;
	if (p->todo_tail != NULL)
		p->todo_tail->next = b;
	else
		p->todo = b;
	p->todo_tail = b;
	if (p->idle == 0 && p->nthreads < p->max)
		deliver_pool_spawn(p);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* deliver_pool_poke - wake the main thread with no batch (dest_wait.c) */
void
deliver_pool_poke(struct deliver_pool *p)
{
	(void)!write(p->pipe[1], "", 1);
}

/* deliver_pool_collect - one finished batch, or NULL; drains the pipe first */
struct deliver_batch *
deliver_pool_collect(struct deliver_pool *p)
{
	struct deliver_batch *b;
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

/* deliver_pool_stop - let the workers finish what they hold, then join them;
 * the batches they finish stay for deliver_pool_collect */
void
deliver_pool_stop(struct deliver_pool *p)
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

/* deliver_pool_close - stop and free the pool */
void
deliver_pool_close(struct deliver_pool *p)
{
	if (p == NULL)
		return;
	deliver_pool_stop(p);
	close(p->pipe[0]);
	close(p->pipe[1]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->threads);
	free(p);
}
