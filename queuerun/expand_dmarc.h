/*
 * expand_dmarc.h - a list's dmarc_mitigation resolved for one post
 * (expand_dmarc.c).
 */
#ifndef MJQ_EXPAND_DMARC_H
#define MJQ_EXPAND_DMARC_H

#include <stddef.h>

#include "lists.h"

struct queuerun;
struct qr_msg;

/* expand_dmarc - what the list does to this post: munge_if_strict
 * becomes munge or none by the poster's DMARC policy */
enum dmarc_mitigation expand_dmarc(struct queuerun *q, struct qr_msg *m,
    const struct listconf *lc, const char *text, size_t len);

#endif
