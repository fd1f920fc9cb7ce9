/*
 * expand_owner.h - the owner function (expand_owner.c): mail to
 * <list>-owner goes to the owners, unless it is a bounce (bounce.c).
 */
#ifndef MJQ_EXPAND_OWNER_H
#define MJQ_EXPAND_OWNER_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

/* expand_owner - snapshot the owners into the state file */
int expand_owner(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
