/*
 * sched.h - the public interface of mjq's pure delivery scheduler.
 *
 * This is Postfix's queue manager scheduling (SCHEDULER_README) as a
 * library: per-destination concurrency feedback with dead-destination
 * detection, and per-transport preemptive job scheduling with delivery slots
 * and recipient slot pools.  It does no I/O and reads no clock: every call
 * that depends on time takes `now` (seconds, any epoch, as a double), and
 * the only ways out are the return values and the callbacks below, so the
 * runner and the simulator drive exactly the same code.
 *
 * Words: a message has recipients; each recipient is bound to a transport
 * and a destination (nexthop); a job is one message within one transport;
 * an entry is a batch of recipients of one job for one destination, and is
 * the unit handed to a delivery agent.
 *
 * SCHEDULER_README, wherever mjq cites it, is Postfix's "Postfix Queue
 * Scheduler": README_FILES/SCHEDULER_README in the Postfix source, and
 * https://www.postfix.org/SCHEDULER_README.html.  mjq follows its text as
 * of Postfix 2.9 and later (its disclaimer names 2.9; Debian 12 ships
 * Postfix 3.7): the Postfix 2.5 concurrency scheduler and Patrik Rak's
 * preemptive scheduler.  Its section names are quoted as they stand.
 */
#ifndef SCHED_H
#define SCHED_H

#include "dest_state.h"
#include <stddef.h>
#include <stdint.h>

#include "sched_params.h"

struct sched;
struct sched_msg;
struct sched_entry;

/* What the runner must do with a selected entry. */
enum sched_action {
	SCHED_DELIVER, /* deliver it, then report the outcome */
	SCHED_DEFER    /* destination is dead: defer its recipients */
};

/* What happened to a delivered entry (the feedback it gives). */
enum sched_outcome {
	SCHED_OK,	 /* delivered, or failed after the handshake */
	SCHED_CONN_FAIL, /* connection or handshake failure: negative */
	SCHED_FAIL_OTHER /* any other failure: still positive feedback */
};

/* Bits returned by sched_done(). */
#define SCHED_MSG_FINISHED 1 /* the entry's message has no work left */

struct sched_dest_state;

/*
 * Runner-supplied callbacks.  refill: read up to `max` more recipients of
 * the message, calling sched_rcpt_add() for each, and return how many are
 * still unread afterwards.  log: one line of feedback debugging.
 *
 * admit (optional; NULL: every delivery the scheduler allows starts): the
 * runner's last word before a delivery to a destination starts, for a
 * concurrency window shared with other runners.  It returns 1 when the
 * delivery may start (the runner has taken a slot for it) and 0 when not;
 * either way, when shared->window >= 0 it has filled *shared with the
 * shared state (busy = deliveries of OTHER runners), which the scheduler
 * adopts as by sched_dest_load().  A refused destination is tried again
 * SCHED_SHARED_RETRY seconds later (see sched_core_wakeup()), or at once
 * if it is now dead.  The scheduler itself still does no I/O: like
 * refill, the callback is where the runner does it.
 */
struct sched_callbacks {
	long (*refill)(void *arg, struct sched_msg *, void *msg_ctx, long max);
	void (*log)(void *arg, const char *line);
	void *arg;
	int (*admit)(void *arg, const char *transport, const char *nexthop,
	    double now, struct sched_dest_state *shared);
};

/* How soon a destination refused by admit is tried again (seconds) when
 * no sched_core_shared_retry comes first. */
#define SCHED_SHARED_RETRY 1.0

/* Per-destination state, for status output and the shared table: the
 * shared part (dest_state.h) and what only this scheduler knows. */
struct sched_dest_state {
	struct dest_state ds; /* window, feedback, dead, rate */
	int busy;	      /* deliveries in flight */
	long todo;	      /* entries waiting */
	int limit; /* client-side concurrency limit in force (to admit too) */
	double rate_interval; /* to admit: seconds between starts (0: none) */
};

/*
 * destination_rate_limit N/period: starts at least period/N apart, so at
 * most N in any period.  The one rule, for a scheduler's own state and
 * for state shared between runners: 1 and *tat advanced when a start
 * may happen now, else 0 and *tat left (the start may happen at *tat).
 */
int sched_rate_take(double *tat, double now, double interval);

/* Create a scheduler; *p gives the global limits (message_recipient_*). */
struct sched *sched_core_create(
    const struct sched_params *, const struct sched_callbacks *);
/* Add a transport with its own parameters; -1 if it exists or no memory. */
int sched_core_transport(
    struct sched *, const char *name, const struct sched_params *);
/* Free everything; report every SCHED_DELIVER entry handed out first. */
void sched_core_free(struct sched *);

/*
 * A message enters core: rcpts is how many recipients its state file has
 * left; the first batch is read at once through the refill callback.
 * NULL: out of memory, or no recipient was read.
 */
struct sched_msg *sched_msg_add(
    struct sched *, void *msg_ctx, double queued, long rcpts, double now);
/* From inside refill: bind one recipient; -1 unknown transport or memory. */
int sched_rcpt_add(struct sched *, struct sched_msg *, const char *transport,
    const char *nexthop, uint32_t rcpt_id);

/* The next entry to deliver (or to defer, see *act); NULL if none now. */
struct sched_entry *sched_core_select(
    struct sched *, double now, enum sched_action *);
/*
 * Report a selected entry (the outcome is ignored for SCHED_DEFER) and free
 * it; *st, if not NULL, gets its destination's state after the feedback.
 * Returns SCHED_MSG_FINISHED when the entry's message has no work left.
 * Read the entry's message context before calling this.
 */
int sched_core_done(struct sched *, struct sched_entry *, enum sched_outcome,
    double now, struct sched_dest_state *);
/* When a rate-limited destination next gets room (0: nothing waits). */
double sched_core_wakeup(const struct sched *);
/* Destinations refused by admit for the shared window wait (1), or not. */
int sched_core_shared_waiting(const struct sched *);
/* The shared window may have room again: ask those destinations now. */
void sched_core_shared_retry(struct sched *, double now);

/* What an entry is: the runner's message, transport, nexthop, recipients. */
void *sched_entry_msg_ctx(const struct sched_entry *);
const char *sched_entry_transport(const struct sched_entry *);
const char *sched_entry_nexthop(const struct sched_entry *);
const uint32_t *sched_entry_rcpts(const struct sched_entry *, size_t *n);

/* A destination's state; -1 if the scheduler holds none for it. */
int sched_dest_state(const struct sched *, const char *transport,
    const char *nexthop, struct sched_dest_state *);
/* Give a destination its own client concurrency limit (kept in core). */
int sched_dest_limit(
    struct sched *, const char *transport, const char *nexthop, int limit);
/*
 * Adopt a destination's shared state (window, success, failure,
 * fail_cohorts, dead, dead_until, rate_tat; busy = deliveries of other
 * runners, for the safety rule), e.g. just before reporting an outcome so
 * that the feedback applies to the state every runner shares.  A shared
 * "dead" defers the waiting entries as a local one does; a shared revival
 * lets them go.  -1 if the scheduler holds no such destination.
 */
int sched_dest_load(struct sched *, const char *transport, const char *nexthop,
    const struct sched_dest_state *, double now);
/* Call fn for every destination in core, e.g. to mirror the shared table. */

/* Bytes and recipients in core now, and their peaks (tests, benchmark). */
size_t sched_core_memory(const struct sched *, size_t *peak);
long sched_core_rcpts(const struct sched *, long *peak);

#endif
