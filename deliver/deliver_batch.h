/*
 * deliver_batch.h - the contract between the runner and the delivery
 * part: a batch, recipients of one text for one destination, delivered
 * in one transaction (or one pipe run, or one maildir pass), and one
 * result per recipient.  The runner fills in what the transport needs
 * (copied, so a worker never reads the runner's data), submits it to the
 * pool (deliver_pool.h) and collects it with the results filled in.  The
 * delivery part knows batches and results, not messages or lists: the
 * runner keeps its own record of a batch around this one (qr_batch.h).
 */
#ifndef MJQ_DELIVER_BATCH_H
#define MJQ_DELIVER_BATCH_H

#include <stddef.h>
#include <sys/types.h>

#include "delivery_conf.h"
#include "names.h"

struct rcpt_head;

enum deliver_outcome { DELIVER_SENT, DELIVER_DEFERRED, DELIVER_BOUNCED };

/* Address families as a set. */
#define DELIVER_FAMILY_V4 1u
#define DELIVER_FAMILY_V6 2u

/* One recipient's result, written by a worker. */
struct deliver_result {
	enum deliver_outcome outcome;
	int code;
	char dsn[16];
	char text[300];
};

struct deliver_batch {
	struct deliver_batch *next; /* the pool's queues */
	size_t n;
	/* What the worker needs, copied so it never reads main's data. */
	enum deliver_transport transport;
	const struct delivery_params *params;
	const char *nexthop;
	/* smtp: the local address to send from (NULL: the kernel's
	 * choice), and the destination's name with it (spool_dest_name),
	 * which sessions are cached and counted by: never shared between
	 * addresses */
	const struct delivery_source *source;
	const char *dest;
	/* smtp, source from a pool: another address of that pool, of a
	 * family in families (DELIVER_FAMILY_*), for a nexthop that has no
	 * address of the source's (the pool's weights kept among them); it
	 * may be called from any worker.  NULL: no other. */
	const struct delivery_source *(*source_for)(
	    void *ctx, const char *nexthop, unsigned families);
	void *source_ctx;
	char sender[NAME_ADDR_MAX + 1];
	const char **addr; /* recipient addresses */
	int datafd;	   /* the text as delivered (shared, pread only) */
	off_t datasize;
	int verp;
	const char *verp_prefix, *verp_domain;
	const struct rcpt_head *head; /* each recipient's own fields, or NULL */
	/* Filled by the worker. */
	struct deliver_result *res;
	char relay[300];
	int negative; /* connection or handshake failure */
	int tls;      /* smtp: SPOOL_DEST_TLS_* of the session used */
	/* smtp: the address source_for gave, the mail went from it (its
	 * session is not kept for the destination); NULL: source */
	const struct delivery_source *sent_from;
	double t_start, t_done;
};

/* deliver_batch_set - one recipient's result (the texts are for logs and
 * reports: a long diagnostic is cut, on purpose) */
void deliver_batch_set(struct deliver_result *r, enum deliver_outcome o,
    int code, const char *dsn, const char *text);
/* deliver_batch_all - the same result for every recipient of b */
void deliver_batch_all(struct deliver_batch *b, enum deliver_outcome o,
    int code, const char *dsn, const char *text);

#endif
