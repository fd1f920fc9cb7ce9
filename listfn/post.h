/*
 * post.h - the list function (post.c): a post's
 * subscribers snapshotted into its state file, and the text as the
 * subscribers get it.
 */
#ifndef MJQ_POST_H
#define MJQ_POST_H

#include <stddef.h>

#include "post_texts.h"
#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* post_first - a new post's state file (posting policy, then the
 * snapshot), on a list thread; -2 when it went aside */
int post_first(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);
/* post_text - a post's text, once it has its state file; -1 to try
 * again later, -2 when it went aside */
int post_text(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);
/* post_compose - the header as the subscribers get it, then the body
 * with the list's texts */
int post_compose(struct listfn_msg *m, const struct listconf *lc,
    const struct post_texts *t, const char *text, size_t len);

#endif
