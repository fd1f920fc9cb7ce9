/*
 * bounce_incident.h - one destination refusing a post wholesale is an
 * incident, not a thousand bounces (bounce_incident.c).
 */
#ifndef MJQ_BOUNCE_INCIDENT_H
#define MJQ_BOUNCE_INCIDENT_H

#include "dsn.h"
#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* bounce_incident - the batch b of m's failures, judged (class[i] for
 * b->rec[i]): incidents noted and told; 0 or -1 (logged; nothing of the
 * batch depends on it) */
int bounce_incident(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const struct fail_batch *b,
    const enum bounce_class *class);

#endif
