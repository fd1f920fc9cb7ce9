/*
 * qr_batch.h - the runner's record of a batch: the batch the workers
 * deliver (deliver_batch.h) and what only the runner reads, the message
 * it is of, the scheduler's entry, the recipients' ids in the pool and
 * the shared-table slot.  dispatch.c makes it, the pool delivers its
 * deliver_batch, outcome.c writes the results, dispatch.c feeds them
 * back and frees it.
 */
#ifndef MJQ_QR_BATCH_H
#define MJQ_QR_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "deliver.h"

struct qr_msg;
struct sched_entry;

struct qr_batch {
	struct deliver_batch d; /* what the workers see */
	struct qr_msg *msg;
	struct sched_entry *entry; /* the scheduler's, until dispatch_done */
	uint32_t *rcpt;		   /* ids in the runner's recipient pool */
	int share_rec, share_slot; /* shared table slot held, or -1 */
	int cluster;		   /* a [cluster] lease is counted for it */
};

/* qr_batch_of - the runner's record of a batch the pool gave back */
static inline struct qr_batch *
qr_batch_of(struct deliver_batch *d)
{
	return (struct qr_batch *)((char *)d - offsetof(struct qr_batch, d));
}

#endif
