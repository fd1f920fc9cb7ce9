/*
 * queuerun_impl.h - the runner's insides, shared by the runner's files (not by
 * the scheduler or the SMTP client, which have their own headers).
 *
 * Concurrency model: one main thread owns every message, state file and
 * destination queue; a pool of worker threads (worker.c) runs the
 * blocking transports (the synchronous SMTP client, pipe, maildir), one
 * batch at a time, and posts results back through a pipe that is
 * queuerun_event_fd.  Threads rather than forked agents because a batch
 * needs no privilege separation here, an SMTP session can then be kept
 * and reused across batches in memory, and the message text is shared
 * (one memfd per message) instead of copied.  Workers touch only their
 * batch and the session cache, so no lock guards the main thread's data.
 */
#ifndef MJQ_QUEUERUN_IMPL_H
#define MJQ_QUEUERUN_IMPL_H

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "delivery_conf.h"
#include "listconf.h"
#include "queuerun.h"
#include "sched.h"
#include "settings.h"
#include "spool_dest.h"
#include "spool_name.h"
#include "spool_path.h"
#include "spool_state.h"

enum qr_outcome { QR_SENT, QR_DEFERRED, QR_BOUNCED };

/* One recipient's result, written by a worker. */
struct qr_result {
	enum qr_outcome outcome;
	int code;
	char dsn[16];
	char text[300];
};

/* A recipient given to the scheduler, in core from the refill that read
 * it until its outcome is written; the scheduler knows it by its slot
 * in the runner's pool (rcpt_pool.c). */
struct qr_rcpt {
	off_t off;	      /* its status field in the state file */
	unsigned char status; /* enum spool_rcpt_status, as read */
	char addr[];
};

struct qr_msg;
struct qr_dest;

/* A batch: recipients of one message for one destination, delivered in
 * one transaction (or one pipe run, or one maildir pass). */
struct qr_batch {
	struct qr_batch *next;
	struct qr_msg *msg;
	struct sched_entry *entry; /* the scheduler's, until dispatch_done */
	size_t n;
	uint32_t *rcpt; /* ids in the runner's recipient pool */
	/* What the worker needs, copied so it never reads main's data. */
	enum qr_transport transport;
	const struct delivery_params *params;
	const char *nexthop; /* the entry's */
	char sender[SPOOL_ADDR_MAX + 1];
	const char **addr; /* recipient addresses (in the pool's records) */
	int datafd;	   /* the text as delivered (shared, pread only) */
	off_t datasize;
	int verp;
	const char *verp_prefix, *verp_domain;
	/* Filled by the worker. */
	struct qr_result *res;
	char relay[300];
	int negative; /* connection or handshake failure */
	double t_start, t_done;
	int share_rec, share_slot; /* shared table slot held, or -1 */
};

/* A destination: one transport and nexthop, interned per runner. */
struct qr_dest {
	struct qr_dest *hnext; /* hash chain */
	enum qr_transport transport;
	char *nexthop;
};

/* A message in the active set. */
struct qr_msg {
	struct qr_msg *next, *prev;
	char path[PATH_MAX];
	char name[SPOOL_NAME_MAX + 1];
	char domain[NAME_DOMAIN_MAX + 1];
	char list[NAME_LIST_MAX + 1];
	enum spool_function function;
	int domain_prio, list_prio;
	int fd;	    /* the claim: LOCK_EX held while active */
	int datafd; /* the text as delivered */
	off_t datasize;
	struct spool_state st;
	struct spool_state_reader *reader; /* the scheduler's refills */
	size_t unread; /* recipients to do not yet given to the scheduler */
	FILE *fails;   /* this pass's failed recipients (fail_log.c) */
	size_t nfail;
	size_t fails_lost; /* failures deferred: no room for their reasons */
	char verp_prefix[NAME_LIST_MAX + 16];
	char archive[PATH_MAX]; /* the list's archive maildir, or "" */
	char archive_rcpt[NAME_LIST_MAX + NAME_DOMAIN_MAX + 16];
	struct sched_msg *smsg;
	int finished;	/* the scheduler has nothing more of it */
	size_t batches; /* in flight */
	double claimed;
	char last_error[SPOOL_STATE_ERROR_MAX + 1];
};

struct queuerun {
	const struct settings *s;
	struct delivery_conf dc;
	struct qr_msg *active; /* the active set */
	int nactive;
	long done;
	int rescan, draining, idle_walk;
	int quick_walks; /* walks in a row whose claims all ended at once */
	void *walk_left; /* due messages the last walk had no room for */
	size_t walk_nleft, walk_pos;
	double next_walk; /* earliest future mtime seen, or 0 */
	time_t next_expire; /* next sweep of held posts (moderate_expire.c) */
	struct sched *sched;
	struct qr_dest **dtab;
	size_t dtab_size, ndest;
	struct qr_rcpt **rtab; /* the recipient pool: records by id */
	uint32_t *rfree;       /* ids free for reuse */
	size_t rtab_size, nrfree;
	struct worker_pool *pool;
	int inflight;
	struct spool_dest share;    /* the shared destination table */
	int admit_rec, admit_slot;  /* slot taken by the last admit */
	uint32_t share_seq;	    /* its release count at the first refusal */
	int share_seq_set;	    /* since the waiter last armed */
	struct dest_waiter *waiter; /* dest_wait.c */
	int waiter_failed;	    /* its thread could not start */
};

/* walk.c */
int walk_claim(struct queuerun *q, double now);
int walk_more(struct queuerun *q, double now);
void walk_forget(struct queuerun *q);
void walk_release(struct queuerun *q, struct qr_msg *m);

/* expand.c, expand_list.c, expand_owner.c */
int expand_message(struct queuerun *q, struct qr_msg *m);
void expand_aside(
    struct queuerun *q, struct qr_msg *m, const char *top, const char *why);
int expand_list(
    struct queuerun *q, struct qr_msg *m, const char *text, size_t len);
int expand_list_text(
    struct qr_msg *m, const struct listconf *lc, const char *text, size_t len);
int expand_owner(
    struct queuerun *q, struct qr_msg *m, const char *text, size_t len);
int expand_plain_text(struct qr_msg *m, const char *text, size_t len);
int expand_state(struct queuerun *q, struct qr_msg *m,
    struct spool_state_init *init, char **rcpts, size_t n);
int expand_listconf(struct queuerun *q, struct qr_msg *m, struct listconf *lc);
int expand_state_open(struct queuerun *q, struct qr_msg *m,
    struct spool_state_init *init, struct spool_state_writer *w);
int expand_state_commit(struct qr_msg *m, struct spool_state_writer *w);
int expand_memfd(
    struct qr_msg *m, const char *a, size_t alen, const char *b, size_t blen);

/* route.c */
int route_rcpt(struct queuerun *q, const char *addr, enum qr_transport *t,
    char *nexthop, size_t len);

/* dispatch.c: the one place that decides what to deliver next */
int dispatch_open(struct queuerun *q, char *err, size_t errlen);
int dispatch_add(struct queuerun *q, struct qr_msg *m, double now);
int dispatch_run(struct queuerun *q, double now);
void dispatch_done(struct queuerun *q, struct qr_batch *b, double now);
double dispatch_wakeup(const struct queuerun *q);
void dispatch_batch_free(struct qr_batch *b);
void dispatch_free(struct queuerun *q);

/* rcpt_pool.c: the recipients the scheduler holds */
int rcpt_pool_add(
    struct queuerun *q, const struct spool_rcpt *rc, uint32_t *id);
struct qr_rcpt *rcpt_pool_get(const struct queuerun *q, uint32_t id);
void rcpt_pool_drop(struct queuerun *q, uint32_t id);
void rcpt_pool_free(struct queuerun *q);

/* fail_log.c: this pass's failed recipients, on disk until the bounce */
struct fail_rec {
	off_t off;
	const char *addr, *dsn, *diag;
};
void fail_log_add(struct queuerun *q, struct qr_msg *m, off_t off,
    enum spool_rcpt_status from, const char *addr, const char *dsn,
    const char *diag);
#define FAIL_BATCH_MAX 1000 /* failed recipients named in one bounce */
struct fail_batch {
	size_t n;
	struct fail_rec rec[FAIL_BATCH_MAX];
	char *line[FAIL_BATCH_MAX]; /* the text the records point into */
};
int fail_log_rewind(struct qr_msg *m);
int fail_log_batch(struct qr_msg *m, struct fail_batch *b);
void fail_log_batch_free(struct fail_batch *b);
void fail_log_close(struct qr_msg *m);

/* dest_share.c: the destination table shared with other runners */
void dest_share_open(struct queuerun *q);
int dest_share_admit(void *arg, const char *transport, const char *nexthop,
    double now, struct sched_dest_state *st);
void dest_share_attach(struct queuerun *q, struct qr_batch *b);
int dest_share_done(
    struct queuerun *q, struct qr_batch *b, enum sched_outcome o, double now);
void dest_share_close(struct queuerun *q);

/* dest_wait.c: woken when another runner gives a slot back */
struct dest_waiter;
void dest_wait_arm(struct queuerun *q);
int dest_wait_woken(struct queuerun *q);
void dest_wait_stop(struct queuerun *q);

/* worker.c */
struct worker_pool;
struct worker_pool *worker_open(int max_threads, char *err, size_t errlen);
int worker_event_fd(const struct worker_pool *p);
void worker_poke(struct worker_pool *p);
void worker_submit(struct worker_pool *p, struct qr_batch *b);
struct qr_batch *worker_collect(struct worker_pool *p);
void worker_stop(struct worker_pool *p);
void worker_close(struct worker_pool *p);

/* deliver_smtp.c, deliver_local.c */
void deliver_smtp(struct qr_batch *b);
void deliver_smtp_reap(double now, int all);
void deliver_pipe(struct qr_batch *b);
void deliver_maildir(struct qr_batch *b);
void deliver_discard(struct qr_batch *b);
void deliver_all(struct qr_batch *b, enum qr_outcome o, int code,
    const char *dsn, const char *text);
double deliver_now(void);

/* outcome.c */
void outcome_batch(struct queuerun *q, struct qr_batch *b, double now);
int outcome_finish(struct queuerun *q, struct qr_msg *m, double now);

/* dsn.c: one report names one batch of the fail log */
struct dsn_part {
	const struct fail_batch *batch; /* its recipients */
	size_t part, parts;		/* 1 of 1, or n of more */
	size_t total;			/* failed recipients in all parts */
	int expired; /* the message outlived its queue lifetime */
};
int dsn_create(
    struct queuerun *q, struct qr_msg *m, const struct dsn_part *part);

/* queuerun.c */
void queuerun_msg_free(struct queuerun *q, struct qr_msg *m);
const struct delivery_params *queuerun_params(
    const struct queuerun *q, enum qr_transport t);

#endif
