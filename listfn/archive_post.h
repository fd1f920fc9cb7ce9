/*
 * archive_post.h - a post handed to the list's web archive
 * (archive_post.c): collected into the archive inbox in the spool, and
 * mj_archive started to store it.
 */
#ifndef MJQ_ARCHIVE_POST_H
#define MJQ_ARCHIVE_POST_H

#include <stddef.h>

#include "lists.h"
#include "listfn_msg.h"

/* archive_post - a post accepted for m's list (first processing, where
 * digest_collect is called) into the list's archive inbox when the list
 * has archive_web = yes, and mj_archive started on it; 0, or -1 (try the
 * post again later) */
int archive_post(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len);
/* archive_post_sweep - mj_archive started for each list whose inbox
 * still holds posts (mj_archive was missing, or died); the number of
 * lists */
int archive_post_sweep(struct listfn_env *env);

#endif
