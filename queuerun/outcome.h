/*
 * outcome.h - what a delivery result does to a message (outcome.c): per
 * batch, the recipients' words in the state file; per message, at the
 * end of its pass, expiry, the bounce, then removal or the next try.
 */
#ifndef MJQ_OUTCOME_H
#define MJQ_OUTCOME_H

struct queuerun;
struct qr_msg;
struct qr_batch;

/* The outcomes' part of the runner (struct queuerun). */
struct outcome_state {
	struct qr_msg *sync_list; /* outcomes written, not yet synced */
	long done;		  /* messages whose pass has ended */
};

/* outcome_batch - a batch is back: its results into the state file */
void outcome_batch(struct queuerun *q, struct qr_batch *b, double now);
/* outcome_sync - the outcomes written so far made durable, one
 * fdatasync per message */
void outcome_sync(struct queuerun *q);
/* outcome_finish - nothing of m waits or is in flight: end its pass */
int outcome_finish(struct queuerun *q, struct qr_msg *m, double now);

#endif
