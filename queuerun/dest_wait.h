/*
 * dest_wait.h - wake the runner when another runner gives a slot of the
 * shared destination table back (dest_wait.c).
 */
#ifndef MJQ_DEST_WAIT_H
#define MJQ_DEST_WAIT_H

struct queuerun;
struct dest_waiter;

/* dest_wait_arm - sleep on the table while the scheduler was refused */
void dest_wait_arm(struct queuerun *q);
/* dest_wait_woken - a slot came back since the last arm */
int dest_wait_woken(struct queuerun *q);
/* dest_wait_stop - end the waiting thread */
void dest_wait_stop(struct queuerun *q);

#endif
