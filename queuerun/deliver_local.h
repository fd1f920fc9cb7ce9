/*
 * deliver_local.h - the transports that stay on this host
 * (deliver_local.c): pipe, maildir, discard; and deliver_all, the same
 * result for every recipient of a batch.  They run in worker threads.
 */
#ifndef MJQ_DELIVER_LOCAL_H
#define MJQ_DELIVER_LOCAL_H

#include "qr_batch.h"

/* deliver_pipe - run the nexthop's command once per recipient */
void deliver_pipe(struct qr_batch *b);
/* deliver_maildir - one file in the nexthop maildir */
void deliver_maildir(struct qr_batch *b);
/* deliver_discard - every recipient sent, nothing written */
void deliver_discard(struct qr_batch *b);
/* deliver_all - the same result for every recipient of b */
void deliver_all(struct qr_batch *b, enum qr_outcome o, int code,
    const char *dsn, const char *text);

#endif
