/*
 * state_sync.h - the state files' fdatasync on a thread of its own
 * (state_sync.c), so that the main thread starts the next batches while
 * the disk makes the last ones' words durable.
 */
#ifndef MJQ_STATE_SYNC_H
#define MJQ_STATE_SYNC_H

#include <pthread.h>
#include <stddef.h>

struct deliver_pool;

/* One job at a time: fds[0..n) synced, errs[i] the errno of each (0). */
struct state_sync {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct deliver_pool *pool; /* poked when a job is done */
	int started;		   /* the thread runs */
	int stop;
	int handed; /* a job is the thread's (main thread's view) */
	int taken;  /* the thread has a job to do */
	int done;   /* and has done it */
	size_t n, cap;
	int *fds, *errs;
	void **tags; /* the caller's, one per fd */
};

/* state_sync_start - the thread; 0, or -1 (the caller syncs inline) */
int state_sync_start(struct state_sync *s, struct deliver_pool *pool);
/* state_sync_add - one more fd (and its tag) for the next job; 0, -1 */
int state_sync_add(struct state_sync *s, int fd, void *tag);
/* state_sync_hand - the fds added so far to the thread */
void state_sync_hand(struct state_sync *s);
/* state_sync_done - the job handed is done (1), or still running (0),
 * or none was handed (-1); once it has said 1, s->n entries are the
 * job's until state_sync_clear */
int state_sync_done(struct state_sync *s);
/* state_sync_clear - the finished job forgotten: fds may be added */
void state_sync_clear(struct state_sync *s);
/* state_sync_stop - wait for the job in hand, end the thread */
void state_sync_stop(struct state_sync *s);
/* state_sync_free - the job's arrays, once it is stopped and taken */
void state_sync_free(struct state_sync *s);

#endif
