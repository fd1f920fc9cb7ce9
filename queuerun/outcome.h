/*
 * outcome.h - what a delivery result does to a message (outcome.c): per
 * batch, the recipients' words in the state file; per message, at the
 * end of its pass, expiry, the bounce, then removal or the next try.
 */
#ifndef MJQ_OUTCOME_H
#define MJQ_OUTCOME_H

#include "state_sync.h"

struct queuerun;
struct qr_msg;
struct qr_batch;

/* The outcomes' part of the runner (struct queuerun). */
struct outcome_state {
	struct qr_msg *sync_list; /* outcomes written, not yet synced */
	size_t unsynced;	  /* batches whose words are not durable */
	size_t job_batches;	  /* of them, those in the sync thread's job */
	struct state_sync sync;	  /* the thread (state_sync.c) */
	long done;		  /* messages whose pass has ended */
};

/* outcome_batch - a batch is back: its results into the state file */
void outcome_batch(struct queuerun *q, struct qr_batch *b, double now);
/* outcome_sync_start - the sync thread; without it syncs are inline */
void outcome_sync_start(struct queuerun *q);
/* outcome_sync - the sync thread's finished job taken back, the
 * outcomes written since handed to it (or synced inline) */
void outcome_sync(struct queuerun *q);
/* outcome_sync_wait - every outcome written made durable, the thread
 * ended (the runner closes) */
void outcome_sync_wait(struct queuerun *q);
/* outcome_syncing - m's words wait for their sync: not finished yet */
int outcome_syncing(const struct qr_msg *m);
/* outcome_room - may another batch start: those in flight and those
 * whose words are not yet durable are fewer than twice the threads */
int outcome_room(const struct queuerun *q);
/* outcome_finish - nothing of m waits or is in flight: end its pass */
int outcome_finish(struct queuerun *q, struct qr_msg *m, double now);

#endif
