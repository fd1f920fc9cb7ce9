/*
 * deliver_local.h - the transports that stay on this host
 * (deliver_local.c): pipe, maildir, discard.  They run in worker threads.
 */
#ifndef MJQ_DELIVER_LOCAL_H
#define MJQ_DELIVER_LOCAL_H

#include "deliver_batch.h"

/* deliver_pipe - run the nexthop's command once per recipient */
void deliver_pipe(struct deliver_batch *b);
/* deliver_maildir - one file in the nexthop maildir */
void deliver_maildir(struct deliver_batch *b);
/* deliver_discard - every recipient sent, nothing written */
void deliver_discard(struct deliver_batch *b);
#endif
