/*
 * expand_dmarc.h - a list's dmarc_mitigation resolved for one post
 * (expand_dmarc.c).
 */
#ifndef MJQ_EXPAND_DMARC_H
#define MJQ_EXPAND_DMARC_H

#include <stddef.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* expand_dmarc - what the list does to this post: munge_if_strict
 * becomes munge or none by the poster's DMARC policy */
enum dmarc_mitigation expand_dmarc(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len);
int expand_arc(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
