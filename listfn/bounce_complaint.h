/*
 * bounce_complaint.h - ARF complaints to <list>-owner
 * (bounce_complaint.c): the complaining subscriber, as the report proves it,
 * unsubscribed, the owners told once a day.
 */
#ifndef MJQ_BOUNCE_COMPLAINT_H
#define MJQ_BOUNCE_COMPLAINT_H

#include <stddef.h>
#include <time.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* bounce_complaint - owner mail that may be a feedback report: 1 when
 * it is none; 2 one to forward to the owners as it is (not abuse, or
 * proving nobody; never read as a bounce); 0 done (state file made); -1
 * try again later */
int bounce_complaint(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);
/* bounce_complaint_summary - the complaints of a day or more told to
 * the owners in one notice, as posts go out; 0 or -1 */
int bounce_complaint_summary(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, time_t now);

#endif
