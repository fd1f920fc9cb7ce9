/*
 * moderate_expire.h - held posts past their list's moderation_lifetime
 * (moderate_expire.c), swept by the step loop before a walk.
 */
#ifndef MJQ_MODERATE_EXPIRE_H
#define MJQ_MODERATE_EXPIRE_H

#include <time.h>

struct listfn_env;

/* Held posts expired in one sweep, and sweeps' spacing per runner. */
#define MODERATE_EXPIRE_MAX 100
#define MODERATE_EXPIRE_EVERY 60

/* moderate_expire - sweep HOLD/ once, its caller spacing the sweeps
 * MODERATE_EXPIRE_EVERY apart; the number of held posts expired */
int moderate_expire(struct listfn_env *env, time_t now);

#endif
