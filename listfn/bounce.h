/*
 * bounce.h - owner mail that is a bounce (bounce.c): counted against the
 * subscribers it names, who are removed past the list's limit.
 */
#ifndef MJQ_BOUNCE_H
#define MJQ_BOUNCE_H

#include <stddef.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* bounce_process - count a bounce: 1 when it is not one (forward it),
 * 0 done (empty state file made), -1 try again later */
int bounce_process(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

/* bounce_rule_of - the weights, threshold and age of counts of list lc */
void bounce_rule_of(const struct listconf *lc, struct bounce_rule *rule);

#endif
