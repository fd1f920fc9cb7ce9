/*
 * sched_core.h - the scheduler itself (sched_core.c): its transports,
 * the heap of queue wakeups, the allocator and log the other files use.
 *
 * The shapes follow Postfix's qmgr (SCHEDULER_README): transports own
 * destination queues (sched_queue.h) and jobs; a job (one message in one
 * transport) owns peers, one per destination it has recipients for
 * (sched_job.h); a peer owns the entries, recipient batches, waiting for
 * that destination (sched_rcpt.h).  None of these headers is visible to
 * the runner, which only sees sched.h
 */
#ifndef MJQ_SCHED_CORE_H
#define MJQ_SCHED_CORE_H

#include <stddef.h>
#include "htab.h"
#include "sched.h"
#include "sched_list.h"

struct sched_queue;
struct sched_job;
struct sched_msg;
struct sched_entry;

struct sched_transport {
	struct sched *sched;
	struct sched_params p;
	char *name;
	SCHED_LIST(sched_job) job_list;	  /* scheduler's order */
	SCHED_LIST(sched_job) job_bytime; /* enqueue-time order */
	struct sched_job *job_current;
	struct sched_job *job_next_unread;
	struct sched_job *cand_cache;
	struct sched_job *cand_cache_current;
	double cand_cache_time;
	long rcpt_unused;    /* recipient slot pool */
	long rcpt_per_stack; /* extra pool for preemption */
	int busy;	     /* entries in delivery */
	struct htab queues;
	struct htab peers;
};

struct sched_wake {
	double at;
	struct sched_queue *queue;
};

struct sched {
	struct sched_params p; /* defaults and global limits */
	struct sched_callbacks cb;
	struct sched_transport **tr;
	size_t ntr;
	size_t rr;			  /* round-robin position */
	SCHED_LIST(sched_entry) deferred; /* entries to hand back */
	SCHED_LIST(sched_msg) msgs;	  /* every message in core */
	struct sched_wake *wake;	  /* min-heap of queue wakeups */
	size_t nwake, wake_cap;
	double now; /* time of the current call */
	long rcpt_in_core, rcpt_peak;
	size_t mem, mem_peak;
};

void *sched_core_alloc(struct sched *, size_t);
void sched_core_release(struct sched *, void *, size_t);
int sched_core_wake(struct sched *, struct sched_queue *, double at);
struct sched_transport *sched_core_find(const struct sched *, const char *);
void sched_core_log(struct sched *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
