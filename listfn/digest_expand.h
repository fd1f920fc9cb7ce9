/*
 * digest_expand.h - a digest issue's text as it is delivered
 * (digest_expand.c).
 */
#ifndef MJQ_DIGEST_EXPAND_H
#define MJQ_DIGEST_EXPAND_H

#include <stddef.h>

#include "listfn_msg.h"

int digest_is_issue(const char *kind);
int digest_expand(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
