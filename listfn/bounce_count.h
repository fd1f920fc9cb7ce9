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
/* bounce_count_once - as bounce_count, for a message whose state file
 * (its forward, or its end) follows: counted with a mark of m in the
 * same write, so m processed again (the state file failed, or its runner
 * died before it) is not counted twice; 1 counted now (or the counters
 * could not be written: logged), 0 counted before */
int bounce_count_once(struct listfn_env *env, const struct listfn_msg *m,
    const size_t n[BOUNCE_CLASSES], unsigned long long complaints);
/* bounce_count_was - 1 when m was counted by bounce_count_once and its
 * state file is not yet made (a pass before this one did the work up
 * to the count), 0 not, -1 cannot tell */
int bounce_count_was(struct listfn_env *env, const struct listfn_msg *m);
/* bounce_count_settled - m's state file made: its mark taken out (a
 * mark left by a crash goes once m has left the spool) */
void bounce_count_settled(struct listfn_env *env, const struct listfn_msg *m);

#endif
