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
#include <stdint.h>
#include <time.h>

#include "deliver.h"
#include "listfn.h"
#include "htab.h"
#include "settings.h"
#include "spool_dest.h"

struct qr_msg;
struct qr_dest;
struct qr_rcpt;
struct sched;
struct deliver_pool;
struct dest_waiter;
struct listwork;
struct cluster;
struct cluster_settings;
struct source_pick;

struct queuerun {
	const struct settings *s;
	const struct cluster_settings *cs; /* [cluster], parsed once too */
	const struct delivery_conf *dc;	   /* parsed once, by the caller */
	struct qr_msg *active;		   /* the active set */
	struct qr_msg *sync_list; /* outcomes written, not yet synced */
	int nactive;
	long done;
	int rescan, draining, idle_walk;
	int abandoned;	 /* queuerun_abandon: exit without the workers */
	int quick_walks; /* walks in a row whose claims all ended at once */
	void *walk_left; /* due messages the last walk had no room for */
	size_t walk_nleft, walk_pos;
	double next_walk;   /* earliest future mtime seen, or 0 */
	time_t next_expire; /* next sweep of held posts (moderate_expire.c) */
	struct sched *sched;
	struct htab dests;	     /* the interned destinations (qr_dest.c) */
	struct source_pick *srcpick; /* sending-address pools, or NULL */
	size_t dests_mem;	     /* bytes of its bucket array */
	struct qr_rcpt **rtab;	     /* the recipient pool: records by id */
	uint32_t *rfree;	     /* ids free for reuse */
	size_t rtab_size, nrfree;
	struct deliver_pool *pool;
	int inflight;
	struct spool_dest share;    /* the shared destination table */
	int admit_rec, admit_slot;  /* slot taken by the last admit */
	uint32_t share_seq;	    /* its release count at the first refusal */
	int share_seq_set;	    /* since the waiter last armed */
	struct dest_waiter *waiter; /* dest_wait.c */
	struct listwork *listwork;  /* listwork.c */
	int waiter_failed;	    /* its thread could not start */
	struct cluster *cluster;    /* [cluster] leases (dest_cluster.c) */
	int admit_cluster;	    /* the last admit holds a lease too */
	double cluster_retry;	    /* ask refused destinations again then */
	struct listfn_env fn;	    /* the list functions' environment */
};

#endif
