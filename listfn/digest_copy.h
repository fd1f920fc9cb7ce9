/*
 * digest_copy.h - a digest issue's text as it is delivered
 * (digest_copy.c).
 */
#ifndef MJQ_DIGEST_COPY_H
#define MJQ_DIGEST_COPY_H

#include <stddef.h>

#include "listfn_msg.h"

int digest_copy_is(const char *kind);
int digest_copy(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
