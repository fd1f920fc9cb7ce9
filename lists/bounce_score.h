/*
 * bounce_score.h - a subscriber's bounce score (bounce_score.c): at most
 * one count a day, weighed by class, in the list's bounces file.
 */
#ifndef MJQ_BOUNCE_SCORE_H
#define MJQ_BOUNCE_SCORE_H

#include <time.h>

#include "bounce_class.h"
#include "settings.h"

/* Scores and weights are in hundredths: 1.0 is 100. */
struct bounce_rule {
	long long weight[BOUNCE_CLASSES]; /* per class; 0 = not counted */
	long long threshold;		  /* 0 = never reached */
	long long max_age;		  /* seconds a count lasts */
};

/* bounce_score_add - count a failure of addr of class at now: 1 when
 * it raised the score (a first count today, or a stronger class than
 * today's), 0 when it did not, -1 error; *score its score after it.  A
 * score that reaches the threshold empties the address's counts. */
int bounce_score_add(const struct settings *s, const char *domain,
    const char *list, const char *addr, enum bounce_class class, time_t now,
    const struct bounce_rule *rule, long long *score);

#endif
