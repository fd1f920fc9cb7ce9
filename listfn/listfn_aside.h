/*
 * listfn_aside.h - a message moved to BAD/ or HOLD/ (listfn_aside.c).
 */
#ifndef MJQ_LISTFN_ASIDE_H
#define MJQ_LISTFN_ASIDE_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

/* listfn_aside - move a message to BAD/ or HOLD/ (top) with a reason: -2
 * moved, -1 not (logged; the message is to be put off) */
int listfn_aside(struct listfn_env *env, struct listfn_msg *m, const char *top,
    const char *why);

#endif
