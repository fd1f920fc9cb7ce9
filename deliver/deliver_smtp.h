/*
 * deliver_smtp.h - the smtp transport (deliver_smtp.c): one transaction
 * per batch over a cached session.  It runs in worker threads.
 */
#ifndef MJQ_DELIVER_SMTP_H
#define MJQ_DELIVER_SMTP_H

struct deliver_batch;

/* deliver_smtp - deliver b over a session to its nexthop */
void deliver_smtp(struct deliver_batch *b);
/* deliver_smtp_reap - close cached sessions past their time (all: every
 * one) */
void deliver_smtp_reap(double now, int all);

#endif
