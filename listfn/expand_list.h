/*
 * expand_list.h - the list function (expand_list.c): a post's
 * subscribers snapshotted into its state file, and the text as the
 * subscribers get it.
 */
#ifndef MJQ_EXPAND_LIST_H
#define MJQ_EXPAND_LIST_H

#include <stddef.h>

#include "expand_texts.h"
#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* expand_list_state - a new post's state file (posting policy, then the
 * snapshot), on a list thread; -2 when it went aside */
int expand_list_state(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);
/* expand_list - a post's text, once it has its state file; -1 to try
 * again later, -2 when it went aside */
int expand_list(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);
/* expand_list_text - the header as the subscribers get it, then the body
 * with the list's texts */
int expand_list_text(struct listfn_msg *m, const struct listconf *lc,
    const struct expand_list_texts *t, const char *text, size_t len);

#endif
