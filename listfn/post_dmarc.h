/*
 * post_dmarc.h - a list's dmarc_mitigation resolved for one post
 * (post_dmarc.c).
 */
#ifndef MJQ_POST_DMARC_H
#define MJQ_POST_DMARC_H

#include <stddef.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* post_dmarc - what the list does to this post: munge_if_strict
 * becomes munge or none by the poster's DMARC policy */
enum dmarc_mitigation post_dmarc(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len);
int post_arc(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
