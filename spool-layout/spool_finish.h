/*
 * spool_finish.h - the end of a message's files in QUEUE/: a delivered
 * message removed with its state in the spec's order, and the files a
 * crash leaves without their message (orphans) removed.
 */
#ifndef MJQ_SPOOL_FINISH_H
#define MJQ_SPOOL_FINISH_H

#include "spool_state.h"

int spool_finish(
    struct spool_state *st, const char *msgpath, const char **left);
int spool_orphan_remove(const char *path);
int spool_orphan_hold(const char *state_path);

#endif
