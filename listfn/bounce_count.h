/*
 * bounce_count.h - the operator's counters of a list (bounce_count.c):
 * failures judged per class and complaints taken, in the spool's state.
 */
#ifndef MJQ_BOUNCE_COUNT_H
#define MJQ_BOUNCE_COUNT_H

#include <stddef.h>

#include "lists.h"

struct listfn_msg;
struct listfn_env;

/* bounce_count - n[class] failures judged and complaints taken for m's
 * list added to its counters; a counter that cannot be written is
 * logged, never an error of the message (they are not precious) */
void bounce_count(struct listfn_env *env, const struct listfn_msg *m,
    const size_t n[BOUNCE_CLASSES], unsigned long long complaints);

#endif
