/*
 * copy_head.h - the header fields each recipient of a list's mail gets
 * for itself (copy_head.c).
 */
#ifndef MJQ_COPY_HEAD_H
#define MJQ_COPY_HEAD_H

#include "lists.h"
#include "listfn_msg.h"

int copy_head(
    struct listfn_env *env, struct listfn_msg *m, const struct listconf *lc);

#endif
