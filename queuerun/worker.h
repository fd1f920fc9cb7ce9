/*
 * worker.h - the pool of delivery threads (worker.c): batches in, results
 * back through an event pipe.
 */
#ifndef MJQ_WORKER_H
#define MJQ_WORKER_H

#include <stddef.h>

struct qr_batch;
struct worker_pool;

/* worker_open - a pool of up to max_threads threads, started on demand */
struct worker_pool *worker_open(int max_threads, char *err, size_t errlen);
/* worker_event_fd - readable when a batch is back */
int worker_event_fd(const struct worker_pool *p);
/* worker_poke - make the event fd readable (another thread has news) */
void worker_poke(struct worker_pool *p);
/* worker_submit - a batch to deliver */
void worker_submit(struct worker_pool *p, struct qr_batch *b);
/* worker_collect - a delivered batch, or NULL */
struct qr_batch *worker_collect(struct worker_pool *p);
/* worker_stop - finish the batches in hand, end the threads */
void worker_stop(struct worker_pool *p);
/* worker_close - free the pool */
void worker_close(struct worker_pool *p);

#endif
