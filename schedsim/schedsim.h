/*
 * schedsim.h - mj_schedsim: the scheduler in virtual time.
 *
 * A scenario (INI on stdin) describes scheduler parameters, jobs and
 * destination servers; schedsim_scen.c reads it, schedsim_main.c runs the
 * real scheduler (libsched) against simulated deliveries.
 */
#ifndef SCHEDSIM_H
#define SCHEDSIM_H

#include <stdio.h>

#include "sched.h"

#define SIM_TRANSPORT "smtp"

struct sim_job {
	char *name;
	long rcpts;	   /* recipients */
	double queued;	   /* enqueue time */
	char *dest;	   /* all recipients go here, or NULL */
	long destinations; /* or spread over d0..dN-1, or 0 */
	char *transport;   /* default SIM_TRANSPORT */
	long next;	   /* next recipient to read */
	int arrived;	   /* handed to the scheduler */
};

struct sim_dest {
	char *name;
	int server_limit;      /* concurrent sessions, 0 = any */
	double delivery_time;  /* seconds per delivery */
	int concurrency_limit; /* client side, 0 = transport's */
	double down_from;      /* refuses every session in [from, until) */
	double down_until;
	int sessions;	  /* open now */
	long deliveries;  /* entries attempted or deferred */
	long deferred;	  /* refused or deferred while dead */
	double wsum, wsq; /* window samples at each attempt */
	long wn;
};

struct sim_kv {
	char *transport;
	char *key;
	char *value;
};

struct sim {
	struct sched_params p; /* [scheduler] */
	struct sim_kv *kv;     /* [transport:NAME] overrides */
	size_t nkv;
	struct sim_job *jobs;
	size_t njobs;
	struct sim_dest *dests; /* in order of first mention */
	size_t ndests;
	struct sim_dest **sorted; /* by name, for lookups */
	double start;
	int have_start;
	char err[256];
};

int schedsim_scen_read(struct sim *, FILE *, int *line);
int schedsim_scen_sources(struct sim *, int n);
struct sim_dest *schedsim_scen_dest(const struct sim *, const char *name);
void schedsim_scen_free(struct sim *);

#endif
