/*
 * sched_impl.h - the scheduler's internal structures, shared by its files.
 *
 * The shapes follow Postfix's qmgr (postfix-scheduler.txt): transports own
 * destination queues and jobs; a job (one message in one transport) owns
 * peers (one per destination it has recipients for); a peer owns the
 * entries (recipient batches) waiting for that destination.  Nothing here
 * is visible to the runner, which only sees sched.h.
 */
#ifndef SCHED_IMPL_H
#define SCHED_IMPL_H

#include <stdint.h>

#include "sched.h"
#include "htab.h"
#include "sched_list.h"

/* Where a peer with waiting entries sits. */
enum sched_peer_where {
	PEER_IDLE,  /* no waiting entries */
	PEER_READY, /* on its job's round-robin ready list */
	PEER_PARKED /* on its queue's parked list: queue cannot take more */
};

/* Where an entry is. */
enum sched_entry_state {
	ENTRY_TODO, /* waiting on its peer */
	ENTRY_BUSY, /* handed out for delivery */
	ENTRY_DEFER /* handed back for deferral (dead destination) */
};

struct sched_queue {
	struct htab_node hnode; /* transport's queue table */
	struct sched_transport *transport;
	struct dest_state ds;	       /* window, feedback, dead, rate */
	int busy;		       /* entries in delivery */
	long todo;		       /* waiting entries */
	int limit;		       /* client limit; 0 = transport's */
	double wake_at;		       /* queued wakeup, 0 = none */
	int wake_refs;		       /* heap items naming it, stale too */
	int shared_wait;	       /* refused by the shared window */
	int others;		       /* other runners' busy, last seen */
	SCHED_LIST(sched_peer) peers;  /* every peer of this queue */
	SCHED_LIST(sched_peer) parked; /* peers waiting for capacity */
	char name[];		       /* the nexthop */
};

struct sched_peer {
	struct htab_node hnode; /* transport's (job, queue) table */
	struct sched_job *job;
	struct sched_queue *queue;
	SCHED_LIST(sched_entry) entries; /* waiting entries, FIFO */
	SCHED_LINK(sched_peer) rlink;	 /* job ready list or queue parked */
	SCHED_LINK(sched_peer) qlink;	 /* queue's peer list */
	uint32_t refcount;		 /* entries of any state */
	uint8_t where;			 /* enum sched_peer_where */
};

struct sched_entry {
	SCHED_LINK(sched_entry) link; /* peer's entries or defer list */
	struct sched_peer *peer;
	uint32_t nrcpt;
	uint32_t cap; /* 0: recipients are inline */
	union {
		uint32_t inl[2];
		uint32_t *ptr;
	} rcpt;
	uint8_t state; /* enum sched_entry_state */
};

struct sched_job {
	struct sched_msg *msg;
	struct sched_transport *transport;
	SCHED_LINK(sched_job) tlink;	      /* scheduler's job list */
	SCHED_LINK(sched_job) timelink;	      /* job list by enqueue time */
	SCHED_LINK(sched_job) mlink;	      /* message's job list */
	struct sched_job *stack_parent;	      /* job it preempted */
	SCHED_LIST(sched_job) stack_children; /* jobs preempting it */
	SCHED_LINK(sched_job) siblings;
	int stack_level;	      /* -1 when off the job lists */
	int blocker;		      /* no peer can take an entry now */
	SCHED_LIST(sched_peer) ready; /* peers to round-robin over */
	long slots_used;
	long slots_available;
	long selected_entries;
	long read_entries;
	long rcpt_count; /* in-core recipients */
	long rcpt_limit; /* recipient slots held */
};

struct sched_msg {
	struct sched *sched;
	void *ctx; /* the runner's message */
	double queued;
	long rcpt_count;  /* in-core recipients */
	long rcpt_limit;  /* recipients it may hold in core */
	long rcpt_unread; /* still in the state file */
	double refill_time;
	int refilling; /* inside the refill callback */
	long entries;  /* entries of any state */
	SCHED_LIST(sched_job) jobs;
	SCHED_LINK(sched_msg) link; /* all messages, for teardown */
};

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

/* sched_core.c */
void *sched_core_alloc(struct sched *, size_t);
void sched_core_release(struct sched *, void *, size_t);
int sched_core_wake(struct sched *, struct sched_queue *, double at);
struct sched_transport *sched_core_find(const struct sched *, const char *);
void sched_core_log(struct sched *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sched_queue.c */
struct sched_queue *sched_queue_find(struct sched_transport *, const char *);
struct sched_queue *sched_queue_obtain(struct sched_transport *, const char *);
void sched_queue_idle(struct sched_queue *, double now);
int sched_queue_accepts(struct sched_queue *, double now);
int sched_queue_dead_now(const struct sched_queue *, double now);
void sched_queue_selected(struct sched_queue *, double now);
void sched_queue_done(struct sched_queue *, enum sched_outcome, double now);
void sched_queue_unpark(struct sched_queue *);
void sched_queue_state(const struct sched_queue *, struct sched_dest_state *);
void sched_queue_load(
    struct sched_queue *, const struct sched_dest_state *, double now);
int sched_queue_admit(struct sched_queue *, double now);

/* sched_job.c */
struct sched_job *sched_job_obtain(
    struct sched_msg *, struct sched_transport *);
void sched_job_move_limits(struct sched_job *);
void sched_job_retire(struct sched_job *);
void sched_job_free(struct sched_job *);
void sched_job_pop(struct sched_job *);
void sched_job_unblock(struct sched_job *);

/* sched_select.c */
struct sched_entry *sched_select_entry(struct sched_transport *, double now);
void sched_select_park(struct sched_peer *);
void sched_select_ready(struct sched_peer *);

/* sched_rcpt.c */
void sched_rcpt_refill(struct sched_msg *, double now);
void sched_rcpt_finish(struct sched *, struct sched_entry *, int *flags);
void sched_rcpt_defer_todo(struct sched_queue *);
void sched_rcpt_teardown(struct sched *);

#define SCHED_HAS_ENTRIES(j) ((j)->selected_entries < (j)->read_entries)
#define SCHED_MIN_ENTRIES(j) ((j)->read_entries)
#define SCHED_MAX_ENTRIES(j) ((j)->read_entries + (j)->msg->rcpt_unread)

#endif
