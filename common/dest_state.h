/*
 * dest_state.h - a destination's concurrency state, defined once: what
 * the scheduler keeps per destination (sched/, SCHEDULER_README),
 * what the destination table shared by all runners stores in each record
 * (spool-layout/spool_dest.h), and what the runner moves between the two
 * (queuerun/dest_share.c) as one struct, not field by field.  It lives in
 * common/ because both libsched and spool-layout hold it and neither may
 * include the other's headers.  Plain numbers, no mail knowledge.
 */
#ifndef MJQ_DEST_STATE_H
#define MJQ_DEST_STATE_H

struct dest_state {
	int window;	     /* concurrency window; 0 while dead; -1 unset */
	int dead;	     /* declared dead */
	double success;	     /* positive feedback accumulated */
	double failure;	     /* negative hysteresis remaining */
	double fail_cohorts; /* failed pseudo-cohorts */
	double dead_until;   /* probe allowed from this time (epoch s) */
	double rate_tat;     /* rate limit: theoretical arrival time */
};

#endif
