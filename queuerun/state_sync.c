/*
 * state_sync.c - the state files' fdatasync on a thread of its own.
 *
 * The words of the batches a step collects are written in place
 * (outcome_batch) and made durable here, off the main thread, so that
 * it starts the next batches while the disk works: inline, a runner
 * with one session to a destination delivered one batch per fdatasync
 * (1.1 ms each on the test machine's disk, twice a batch's SMTP
 * exchange with a receiver on loopback).  One job at a time: the files
 * the main thread added (state_sync_add) are handed over together
 * (state_sync_hand), synced in turn, and the pool's pipe is poked when
 * they are; the main thread takes the errors and clears the job
 * (state_sync_done, state_sync_clear).  What outcomes come back while a
 * job runs wait for the next, so one fdatasync covers all of them.  The
 * fds stay the caller's: it keeps each file open until its job is done.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "deliver.h"
#include "state_sync.h"
#include "thread_spawn.h"

/* state_sync_main - take jobs until told to stop */
static void *
state_sync_main(void *arg)
{
	struct state_sync *s = arg;
	size_t i;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->taken && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->taken)
			break;
		pthread_mutex_unlock(&s->mu);
		/* The arrays are not touched by the main thread while
		 * the job is taken. */
		for (i = 0; i < s->n; i++)
			s->errs[i] = fdatasync(s->fds[i]) == -1 ? errno : 0;
		pthread_mutex_lock(&s->mu);
		s->taken = 0;
		s->done = 1;
		deliver_pool_poke(s->pool);
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* state_sync_start - the thread, with every signal blocked */
int
state_sync_start(struct state_sync *s, struct deliver_pool *pool)
{
	s->pool = pool;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (thread_spawn(&s->thread, state_sync_main, s) != 0) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
		return -1;
	}
	s->started = 1;
	return 0;
}

/* state_sync_add - one more fd for the next job */
int
state_sync_add(struct state_sync *s, int fd, void *tag)
{
	size_t cap = s->cap ? s->cap * 2 : 16;
	int *fds, *errs;
	void **tags;

	if (s->handed)
		return -1;
	if (s->n == s->cap) {
		if ((fds = reallocarray(s->fds, cap, sizeof(*fds))) == NULL)
			return -1;
		s->fds = fds;
		if ((errs = reallocarray(s->errs, cap, sizeof(*errs))) == NULL)
			return -1;
		s->errs = errs;
		if ((tags = reallocarray(s->tags, cap, sizeof(*tags))) == NULL)
			return -1;
		s->tags = tags;
		s->cap = cap;
	}
	s->fds[s->n] = fd;
	s->tags[s->n++] = tag;
	return 0;
}

/* state_sync_hand - the fds added so far to the thread */
void
state_sync_hand(struct state_sync *s)
{
	if (s->n == 0 || s->handed)
		return;
	pthread_mutex_lock(&s->mu);
	s->handed = s->taken = 1;
	s->done = 0;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* state_sync_done - is the job handed done */
int
state_sync_done(struct state_sync *s)
{
	int done;

	if (!s->handed)
		return -1;
	if (!s->started)
		return s->done; /* stopped: its last job is done */
	pthread_mutex_lock(&s->mu);
	done = s->done;
	pthread_mutex_unlock(&s->mu);
	return done;
}

/* state_sync_clear - the finished job forgotten */
void
state_sync_clear(struct state_sync *s)
{
	s->handed = s->done = 0;
	s->n = 0;
}

/* state_sync_stop - wait for the job in hand, end the thread; the
 * arrays stay until the caller has taken a finished job's errors */
void
state_sync_stop(struct state_sync *s)
{
	if (!s->started)
		return;
	pthread_mutex_lock(&s->mu);
	while (s->taken)
		pthread_cond_wait(&s->cv, &s->mu);
	s->stop = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	(void)pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	s->started = 0;
}

/* state_sync_free - the job's arrays, once it is stopped and taken */
void
state_sync_free(struct state_sync *s)
{
	free(s->fds);
	free(s->errs);
	free(s->tags);
	s->fds = s->errs = NULL;
	s->tags = NULL;
	s->n = s->cap = 0;
}
