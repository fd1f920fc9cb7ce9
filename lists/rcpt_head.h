/*
 * rcpt_head.h - the header fields that differ per recipient
 * (rcpt_head.c): a list's one-click unsubscribe link (RFC 8058).
 */
#ifndef MJQ_RCPT_HEAD_H
#define MJQ_RCPT_HEAD_H

#include <stddef.h>

#include "listconf.h"
#include "lists_settings.h"

/* The largest text whose copies are each made whole (a footer with each
 * copy's own link): a delivery thread holds two such copies at a time
 * and hashes each; a larger text gets the list's mailto there. */
#define RCPT_HEAD_WHOLE_MAX (1024 * 1024)

struct rcpt_head;
struct dkim_prep;
struct arc_verdict;

int rcpt_head_open(struct rcpt_head **out, const struct lists_settings *ls,
    const struct listconf *lc, const char *list, const char *domain, char *err,
    size_t errlen);
int rcpt_head_make(
    const struct rcpt_head *h, const char *addr, char **out, size_t *len);
void rcpt_head_sign(struct rcpt_head *h, struct dkim_prep *p);
int rcpt_head_text(struct rcpt_head *h, const char *text, size_t len,
    const struct arc_verdict *arc);
int rcpt_head_whole(const struct rcpt_head *h);
void rcpt_head_free(struct rcpt_head *h);

#endif
