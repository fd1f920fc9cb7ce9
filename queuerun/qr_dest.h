/*
 * qr_dest.h - the runner's destinations (qr_dest.c), interned once each:
 * a transport, a nexthop and the source address mail to it leaves from
 * (none without a sending-address pool), known to the scheduler by one
 * name (spool_dest_name: "nexthop" or "source->nexthop").
 */
#ifndef MJQ_QR_DEST_H
#define MJQ_QR_DEST_H

#include "deliver.h"
#include "htab.h"
#include "source_pick.h"

struct qr_dest {
	struct htab_node hnode; /* first: the node is the destination */
	enum deliver_transport transport;
	char *name;			      /* the scheduler's */
	char *nexthop;			      /* without the source */
	const struct delivery_source *source; /* NULL: none */
	/* the pool's answer to a nexthop without the source's family (the
	 * first pool that chose source for it) */
	struct source_pick_ask ask;
};

/* The interned destinations (the runner's, struct queuerun). */
struct qr_dests {
	struct htab tab;
	size_t mem; /* bytes of its bucket array */
};

/* qr_dest_init - no destination yet */
void qr_dest_init(struct qr_dests *ds);
/* qr_dest_get - the interned destination, made when new (kept until
 * qr_dest_free); NULL no memory or too long */
struct qr_dest *qr_dest_get(struct qr_dests *ds, enum deliver_transport t,
    const char *nexthop, const struct delivery_source *source);
/* qr_dest_find - the destination the scheduler calls transport, name;
 * NULL when none was interned */
struct qr_dest *qr_dest_find(
    struct qr_dests *ds, const char *transport, const char *name);
/* qr_dest_source - the source address of d as text, "" for none */
const char *qr_dest_source(const struct qr_dest *d);
/* qr_dest_free - every destination */
void qr_dest_free(struct qr_dests *ds);

#endif
