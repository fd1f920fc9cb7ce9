/*
 * sweep.h - the minute's sweeps (sweep.c): the list functions' periodic
 * jobs, which the step loop runs before a walk, a minute apart.
 */
#ifndef MJQ_SWEEP_H
#define MJQ_SWEEP_H

#include <time.h>

struct listfn_env;

/* The sweeps' part of the runner (struct queuerun). */
struct sweep {
	time_t next; /* the next sweeps are due then (0: at once) */
};

/* sweep_run - the sweeps, when due: held posts expired, digests due,
 * archive inboxes drained, TLS-RPT reports; returns the clock the walk
 * that follows goes by (read again when a sweep queued mail, else now) */
double sweep_run(struct sweep *sw, struct listfn_env *env, double now);

#endif
