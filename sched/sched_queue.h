/*
 * sched_queue.h - a destination queue (sched_queue.c): its concurrency
 * window and feedback, dead-destination state, and the peers parked on it
 */
#ifndef MJQ_SCHED_QUEUE_H
#define MJQ_SCHED_QUEUE_H

#include <stdint.h>
#include "htab.h"
#include "sched.h"
#include "sched_list.h"

struct sched_transport;
struct sched_peer;

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

#endif
