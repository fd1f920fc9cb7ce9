/*
 * deliver_pool.h - the pool of delivery threads (deliver_pool.c):
 * batches in, results back through an event pipe.
 */
#ifndef MJQ_DELIVER_POOL_H
#define MJQ_DELIVER_POOL_H

#include <stddef.h>

struct deliver_batch;
struct deliver_pool;

/* deliver_pool_open - a pool of up to max_threads threads, started on demand */
struct deliver_pool *deliver_pool_open(
    int max_threads, char *err, size_t errlen);
/* deliver_pool_event_fd - readable when a batch is back */
int deliver_pool_event_fd(const struct deliver_pool *p);
/* deliver_pool_poke - make the event fd readable (another thread has news) */
void deliver_pool_poke(struct deliver_pool *p);
/* deliver_pool_submit - a batch to deliver */
void deliver_pool_submit(struct deliver_pool *p, struct deliver_batch *b);
/* deliver_pool_collect - a delivered batch, or NULL */
struct deliver_batch *deliver_pool_collect(struct deliver_pool *p);
/* deliver_pool_stop - finish the batches in hand, end the threads */
void deliver_pool_stop(struct deliver_pool *p);
/* deliver_pool_close - free the pool */
void deliver_pool_close(struct deliver_pool *p);

#endif
