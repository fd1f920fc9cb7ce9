/*
 * bounce_record.h - a list post's failed recipients, judged where the
 * runner heard them (bounce_record.c), instead of a DSN to <list>-owner.
 */
#ifndef MJQ_BOUNCE_RECORD_H
#define MJQ_BOUNCE_RECORD_H

#include "dsn.h"

struct listfn_env;
struct listfn_msg;

/* bounce_record - the failures of the batch, when m is a post of its
 * list that judges its own (bounce_judge), counted against the
 * subscribers: 0; 1 when m is not such a post, or a count could not
 * be written (make the DSN) */
int bounce_record(
    struct listfn_env *env, struct listfn_msg *m, const struct fail_batch *b);

#endif
