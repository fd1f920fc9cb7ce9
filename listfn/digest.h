/*
 * digest.h - digests (digest.c): a list's accepted posts collected, and
 * issued to its digest readers by size or daily at an hour.
 */
#ifndef MJQ_DIGEST_H
#define MJQ_DIGEST_H

#include <stddef.h>
#include <time.h>

#include "lists.h"
#include "listfn_msg.h"

/* digest_collect - a post accepted for m's list (first processing, the
 * posting policy passed or a moderator approved it) into the list's
 * collection, when the list has digests; an issue when the collection
 * has reached digest_size.  0, or -1 (try the post again later) */
int digest_collect(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len);
/* digest_issue_now - an issue boundary for the list (lc: its config,
 * with digests): an issue half sent is sent, and every post waiting goes
 * out in an issue now, to the digest readers of this moment (the digest
 * lock waited for); the messages queued, or -1 */
int digest_issue_now(struct listfn_env *env, const char *domain,
    const char *list, const struct listconf *lc);
/* digest_sweep - every list's digest: an issue a crash left half sent
 * is sent, and one whose hour has come is made; the messages queued */
int digest_sweep(struct listfn_env *env);

#endif
