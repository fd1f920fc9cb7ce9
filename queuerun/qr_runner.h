/*
 * qr_runner.h - the runner's state (struct queuerun), owned by the main
 * thread and passed to every stage of the step loop (queuerun.c).
 *
 * Concurrency model: one main thread owns every message, state file and
 * destination queue; a pool of worker threads (deliver/) runs the
 * blocking transports (the synchronous SMTP client, pipe, maildir), one
 * batch at a time, and posts results back through a pipe that is
 * queuerun_event_fd.  Threads rather than forked agents because a batch
 * needs no privilege separation here, an SMTP session can then be kept
 * and reused across batches in memory, and the message text is shared
 * (one memfd per message) instead of copied.  Workers touch only their
 * batch and the session cache, so no lock guards the main thread's data.
 * The list threads (listwork.c) run a message's first processing with
 * the message handed to them alone; what its function asks of the runner
 * (a walk, m->lm.rescan) comes back with it, never written here.
 */
#ifndef MJQ_QR_RUNNER_H
#define MJQ_QR_RUNNER_H

#include <stddef.h>

#include "deliver.h"
#include "dest_cluster.h"
#include "dest_share.h"
#include "dest_wait.h"
#include "listfn.h"
#include "outcome.h"
#include "qr_dest.h"
#include "rcpt_pool.h"
#include "settings.h"
#include "sweep.h"
#include "walk.h"

struct sched;
struct deliver_pool;
struct listwork;
struct cluster_settings;
struct source_pick;

/* Each stage's own state is a struct declared in the stage's header
 * and written only by its file; what is left here is the configuration,
 * the step loop's flags and the machinery every stage shares. */
struct queuerun {
	const struct settings *s;
	const struct cluster_settings *cs; /* [cluster], parsed once too */
	const struct delivery_conf *dc;	   /* parsed once, by the caller */
	struct listfn_env fn;		   /* the list functions' environment */
	int rescan, draining; /* walk at the next step; claim nothing more */
	int abandoned;	      /* queuerun_abandon: exit without the workers */
	struct sched *sched;
	struct deliver_pool *pool;
	int inflight;		     /* batches at the workers (dispatch.c) */
	struct walk_state walk;	     /* the active set (walk.c) */
	struct sweep sweep;	     /* the minute's sweeps (sweep.c) */
	struct outcome_state out;    /* outcome.c */
	struct qr_dests dests;	     /* the interned destinations */
	struct rcpt_pool rcpts;	     /* the scheduler's recipients */
	struct source_pick *srcpick; /* sending-address pools, or NULL */
	struct dest_share share;     /* the shared destination table */
	struct dest_wait wait;	     /* its waiter thread (dest_wait.c) */
	struct dest_cluster cluster; /* [cluster] leases (dest_cluster.c) */
	struct listwork *listwork;   /* listwork.c */
};

#endif
