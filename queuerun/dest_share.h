/*
 * dest_share.h - the runner's side of the destination table shared by
 * every runner (dest_share.c, spool_dest.h): the scheduler's admit
 * callback, a slot held per delivery, the feedback stored back.
 */
#ifndef MJQ_DEST_SHARE_H
#define MJQ_DEST_SHARE_H

#include "sched.h"

struct queuerun;
struct qr_batch;

/* dest_share_open - map the table (without it, each runner alone) */
void dest_share_open(struct queuerun *q);
/* dest_share_admit - sched_callbacks.admit: may a delivery start */
int dest_share_admit(void *arg, const char *transport, const char *name,
    double now, struct sched_dest_state *st);
/* dest_share_attach - the slot the last admit took goes with b */
void dest_share_attach(struct queuerun *q, struct qr_batch *b);
/* dest_share_done - b's feedback to the scheduler and the table; the
 * scheduler's flags */
int dest_share_done(
    struct queuerun *q, struct qr_batch *b, enum sched_outcome o, double now);
/* dest_share_close - unmap the table */
void dest_share_close(struct queuerun *q);

#endif
