/*
 * rcpt_pool.h - the recipients the scheduler holds, by id (rcpt_pool.c):
 * from the refill that read them (dispatch.c) to the outcome that wrote
 * them (outcome.c).
 */
#ifndef MJQ_RCPT_POOL_H
#define MJQ_RCPT_POOL_H

#include <stdint.h>
#include <sys/types.h>

#include "spool_state.h"

/* A recipient given to the scheduler, in core until its outcome is
 * written; the scheduler knows it by its slot in the pool. */
struct qr_rcpt {
	off_t off;	      /* its status field in the state file */
	unsigned char status; /* enum spool_rcpt_status, as read */
	char addr[];
};

/* The pool (the runner's, struct queuerun): records by id. */
struct rcpt_pool {
	struct qr_rcpt **tab;
	uint32_t *unused; /* ids free for reuse */
	size_t size, nfree;
};

/* rcpt_pool_add - a record of rc; its id in *id */
int rcpt_pool_add(
    struct rcpt_pool *p, const struct spool_rcpt *rc, uint32_t *id);
/* rcpt_pool_get - the record of an id in use */
struct qr_rcpt *rcpt_pool_get(const struct rcpt_pool *p, uint32_t id);
/* rcpt_pool_drop - free a record; its id may be reused */
void rcpt_pool_drop(struct rcpt_pool *p, uint32_t id);
/* rcpt_pool_free - every record and the pool */
void rcpt_pool_free(struct rcpt_pool *p);

#endif
