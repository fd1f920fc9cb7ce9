/*
 * listfn_state.h - the state file a function makes (listfn_state.c).
 */
#ifndef MJQ_LISTFN_STATE_H
#define MJQ_LISTFN_STATE_H

#include <stddef.h>

#include "spool_state.h"

struct listfn_env;
struct listfn_msg;

/* listfn_state_open - start m's state file, recipients to follow */
int listfn_state_open(struct listfn_env *env, struct listfn_msg *m,
    struct spool_state_init *init, struct spool_state_writer *w);
/* listfn_state_commit - commit it and mark it active */
int listfn_state_commit(struct listfn_msg *m, struct spool_state_writer *w);
/* listfn_state - commit m's state file with these recipients (freed)
 * and mark it active */
int listfn_state(struct listfn_env *env, struct listfn_msg *m,
    struct spool_state_init *init, char **rcpts, size_t n);
/* listfn_state_empty - the function did the work itself: a state file
 * without recipients, removed with the message at the end of the pass */
int listfn_state_empty(struct listfn_env *env, struct listfn_msg *m,
    const char *kind, const char *from);

#endif
