/*
 * sched_params.h - every tunable of the pure scheduler, in one struct.
 *
 * The runner's configuration loader and the simulator both hand each
 * [delivery] / [transport:NAME] key to sched_params_set(), so this module is
 * the only place that knows the scheduler's key names, defaults and ranges.
 */
#ifndef SCHED_PARAMS_H
#define SCHED_PARAMS_H

#include <stddef.h>

/* Shape of a concurrency feedback function g(N) or f(N). */
enum sched_fb_kind {
	SCHED_FB_INV,	  /* value / N */
	SCHED_FB_INVSQRT, /* value / sqrt(N) */
	SCHED_FB_CONST	  /* value */
};

struct sched_feedback {
	enum sched_fb_kind kind;
	double value; /* in [0,1] */
};

struct sched_params {
	/* Concurrency scheduler (per destination). */
	int initial_concurrency; /* initial_destination_concurrency */
	int concurrency_limit;	 /* destination_concurrency_limit */
	struct sched_feedback pos_feedback; /* ..._positive_feedback */
	struct sched_feedback neg_feedback; /* ..._negative_feedback */
	int failed_cohort_limit;	    /* 0 = never declare dead */
	int feedback_debug;		    /* log every feedback step */
	long rate_count;		    /* destination_rate_limit N/... */
	double rate_period;		    /* .../period seconds; 0 = none */
	double minimal_backoff_time;	    /* dead destination probe delay */
	int transport_concurrency_limit;    /* deliveries in flight */

	/* Preemptive scheduler (per transport). */
	int slot_cost;	   /* delivery_slot_cost */
	int slot_loan;	   /* delivery_slot_loan */
	int slot_discount; /* delivery_slot_discount, percent */
	int min_slots;	   /* minimum_delivery_slots */

	/* Memory limits. */
	long recipient_limit;		/* per-transport recipient slot pool */
	long extra_recipient_limit;	/* pool for preempting unread jobs */
	long message_recipient_minimum; /* first batch, always */
	long message_recipient_limit;	/* global in-core target */
	long destination_recipient_limit; /* recipients per entry, 0=any */
	long refill_limit;		  /* recipient_refill_limit */
	double refill_delay;		  /* recipient_refill_delay */
};

void sched_params_defaults(struct sched_params *);
int sched_params_set(struct sched_params *, const char *key, const char *value,
    char *err, size_t errlen);
double sched_params_feedback(const struct sched_feedback *, int concurrency);
int sched_params_duration(const char *value, double *secs);

#endif
