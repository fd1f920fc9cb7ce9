/*
 * source_pick.h - which local address a recipient's mail leaves from
 * (source_pick.c): the pool of its list or its domain, and in the pool
 * an address by weight.
 */
#ifndef MJQ_SOURCE_PICK_H
#define MJQ_SOURCE_PICK_H

#include "deliver.h"

struct queuerun;
struct qr_msg;

/* source_pick_open - probe the pools' addresses: one that cannot be
 * bound is logged and left out, never replaced; -1 no memory */
int source_pick_open(struct queuerun *q);
/* What a batch's worker asks when the nexthop has none of the source's
 * address family (deliver_batch.h, source_for). */
struct source_pick_ask {
	const struct delivery_source *(*fn)(
	    void *ctx, const char *nexthop, unsigned families);
	void *ctx;
};

/* source_pick - the source for a recipient at domain of m, sent to
 * nexthop, with ask filled for its batches: NULL when no pool applies
 * (*wait 0: the kernel's choice of address) or when the pool has no
 * usable address left (*wait 1: the recipient waits).  Of the pool's
 * addresses, those of the families nexthop is known to have. */
const struct delivery_source *source_pick(struct queuerun *q,
    const struct qr_msg *m, const char *domain, const char *nexthop,
    struct source_pick_ask *ask, int *wait);
/* source_pick_close - free the state */
void source_pick_close(struct queuerun *q);

#endif
