/*
 * dest_share.h - the runner's side of the destination table shared by
 * every runner (dest_share.c, spool_dest.h): the scheduler's admit
 * callback, a slot held per delivery, the feedback stored back.
 */
#ifndef MJQ_DEST_SHARE_H
#define MJQ_DEST_SHARE_H

#include "sched.h"
#include "spool_dest.h"

struct queuerun;
struct qr_batch;

/* The table's part of the runner (struct queuerun). */
struct dest_share {
	struct spool_dest table;   /* mapped by dest_share_open */
	int admit_rec, admit_slot; /* slot taken by the last admit */
};

/* dest_share_open - map the table (without it, each runner alone) */
void dest_share_open(struct queuerun *q);
/* dest_share_admit - sched_callbacks.admit: may a delivery start */
int dest_share_admit(void *arg, const char *transport, const char *name,
    double now, struct sched_dest_state *st);
/* dest_share_attach - the slot the last admit took goes with b */
void dest_share_attach(struct queuerun *q, struct qr_batch *b);
/* dest_share_undo - the entry e the last admit let through does not
 * start after all (no batch could be made for it): the slot back to the
 * table, the lease back to the cluster */
void dest_share_undo(struct queuerun *q, struct sched_entry *e, double now);
/* dest_share_done - b's feedback to the scheduler and the table; the
 * scheduler's flags */
int dest_share_done(
    struct queuerun *q, struct qr_batch *b, enum sched_outcome o, double now);
/* dest_share_close - unmap the table */
void dest_share_close(struct queuerun *q);

#endif
