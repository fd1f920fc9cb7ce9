/*
 * expand.h - first contact with a claimed message (expand.c): its state
 * file (made by the message's function when there is none yet) and the
 * text as it will be delivered.
 */
#ifndef MJQ_EXPAND_H
#define MJQ_EXPAND_H

#include <stddef.h>

struct queuerun;
struct qr_msg;

/* expand_message - state and text of a freshly claimed message: 0 done,
 * -1 release it (moved aside, or put off for minimal_backoff_time), 1 on
 * the list thread until expand_collect gives it back */
int expand_message(struct queuerun *q, struct qr_msg *m);
/* expand_collect - a message back from the list thread, its expansion
 * ended (*r: 0 done, -1 release it), or NULL */
struct qr_msg *expand_collect(struct queuerun *q, int *r);
/* expand_put_off - not again before minimal_backoff_time (a transient
 * problem before the message reached the scheduler) */
void expand_put_off(struct queuerun *q, struct qr_msg *m);

#endif
