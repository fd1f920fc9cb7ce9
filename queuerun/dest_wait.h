/*
 * dest_wait.h - wake the runner when another runner gives a slot of the
 * shared destination table back (dest_wait.c).
 */
#ifndef MJQ_DEST_WAIT_H
#define MJQ_DEST_WAIT_H

#include <stdint.h>

struct queuerun;
struct dest_waiter;
struct spool_dest;

/* The waiter's part of the runner (struct queuerun). */
struct dest_wait {
	struct dest_waiter *waiter; /* its thread, from the first refusal */
	int failed;		    /* the thread could not start */
	uint32_t seq; /* the table's release count at the first refusal */
	int seq_set;  /* since the thread last armed */
};

/* dest_wait_arm - sleep on the table while the scheduler was refused */
void dest_wait_arm(struct queuerun *q);
/* dest_wait_refused - the table refused a delivery: the first refusal
 * since the last arm gives the release count to sleep on */
void dest_wait_refused(struct queuerun *q, const struct spool_dest *sd);
/* dest_wait_woken - a slot came back since the last arm */
int dest_wait_woken(struct queuerun *q);
/* dest_wait_stop - end the waiting thread */
void dest_wait_stop(struct queuerun *q);

#endif
