/*
 * sched_job.h - a job, one message in one transport, and its peers,
 * one per destination (sched_job.c): the preemption stack and the
 * recipient slots of SCHEDULER_README
 */
#ifndef MJQ_SCHED_JOB_H
#define MJQ_SCHED_JOB_H

#include <stdint.h>
#include "htab.h"
#include "sched_list.h"

struct sched;
struct sched_transport;
struct sched_queue;
struct sched_entry;

/* Where a peer with waiting entries sits. */
enum sched_peer_where {
	PEER_IDLE,  /* no waiting entries */
	PEER_READY, /* on its job's round-robin ready list */
	PEER_PARKED /* on its queue's parked list: queue cannot take more */
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

struct sched_job *sched_job_obtain(
    struct sched_msg *, struct sched_transport *);
void sched_job_move_limits(struct sched_job *);
void sched_job_retire(struct sched_job *);
void sched_job_free(struct sched_job *);
void sched_job_pop(struct sched_job *);
void sched_job_unblock(struct sched_job *);

#define SCHED_HAS_ENTRIES(j) ((j)->selected_entries < (j)->read_entries)
#define SCHED_MIN_ENTRIES(j) ((j)->read_entries)
#define SCHED_MAX_ENTRIES(j) ((j)->read_entries + (j)->msg->rcpt_unread)

#endif
