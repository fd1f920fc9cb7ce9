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

/* expand_message - state and text of a freshly claimed message; -1:
 * release it (moved aside, or put off for minimal_backoff_time) */
int expand_message(struct queuerun *q, struct qr_msg *m);
/* expand_put_off - not again before minimal_backoff_time (a transient
 * problem before the message reached the scheduler) */
void expand_put_off(struct queuerun *q, struct qr_msg *m);
/* expand_plain_text - the delivered text: as stored, minus Return-Path */
int expand_plain_text(struct qr_msg *m, const char *text, size_t len);

#endif
