/*
 * qr_batch.h - a batch: recipients of one message for one destination,
 * delivered in one transaction (or one pipe run, or one maildir pass).
 * dispatch.c makes it, a worker (worker.c, deliver_*.c) fills in the
 * results, outcome.c writes them, dispatch.c feeds them back and frees
 * it.  What the worker needs is copied in, so it never reads the main
 * thread's data.
 */
#ifndef MJQ_QR_BATCH_H
#define MJQ_QR_BATCH_H

#include <stdint.h>
#include <sys/types.h>

#include "delivery_conf.h"
#include "spool_state.h"

struct qr_msg;
struct rcpt_head;
struct sched_entry;

enum qr_outcome { QR_SENT, QR_DEFERRED, QR_BOUNCED };

/* One recipient's result, written by a worker. */
struct qr_result {
	enum qr_outcome outcome;
	int code;
	char dsn[16];
	char text[300];
};

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
	const struct rcpt_head *head; /* each recipient's own fields, or NULL */
	/* Filled by the worker. */
	struct qr_result *res;
	char relay[300];
	int negative; /* connection or handshake failure */
	int tls;      /* smtp: SPOOL_DEST_TLS_* of the session used */
	double t_start, t_done;
	int share_rec, share_slot; /* shared table slot held, or -1 */
};

#endif
