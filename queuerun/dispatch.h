/*
 * dispatch.h - the one place that decides what to deliver next
 * (dispatch.c): the runner's side of the scheduler.  The step loop
 * (queuerun.c) enters messages, asks for batches and gives back each
 * batch once outcome_batch has written its results.
 */
#ifndef MJQ_DISPATCH_H
#define MJQ_DISPATCH_H

#include <stddef.h>

struct queuerun;
struct qr_msg;
struct qr_batch;

/* dispatch_open - the scheduler with one transport per transport kind */
int dispatch_open(struct queuerun *q, char *err, size_t errlen);
/* dispatch_add - enter a message with its recipients still to do (read
 * in batches from its state file); one with none is finished at once */
int dispatch_add(struct queuerun *q, struct qr_msg *m, double now);
/* dispatch_run - batches to the workers while they are free; returns a
 * batch the scheduler deferred (it ends without a worker, its outcome is
 * the caller's), or NULL when nothing more can go now */
struct qr_batch *dispatch_run(struct queuerun *q, double now);
/* dispatch_done - feed a batch's outcome to the scheduler; frees it */
void dispatch_done(struct queuerun *q, struct qr_batch *b, double now);
/* dispatch_wakeup - when the scheduler has work without an event, or 0 */
double dispatch_wakeup(const struct queuerun *q);
/* dispatch_free - the scheduler and every destination */
void dispatch_free(struct queuerun *q);

#endif
