/*
 * spool_move.h - move a message (with its state file) between QUEUE/,
 * HOLD/ and BAD/, and commit mail the runner generates.
 *
 * Both follow numbered states (spool-layout/README, "Moves" and
 * "Generated mail") so that a crash at any point leaves either the old
 * place or the new one complete, never neither.
 */
#ifndef MJQ_SPOOL_MOVE_H
#define MJQ_SPOOL_MOVE_H

#include <stddef.h>

#include "spool_name.h"

int spool_move_lock(const char *msgpath);
int spool_move(const char *spool, const char *msgpath, const char *to_top,
    const char *why, char *final, size_t finallen);
int spool_move_delete(const char *msgpath);
int spool_move_generate(const char *spool, const char *dir,
    struct spool_name *name, const char *state, size_t statelen,
    const char *msg, size_t msglen, char *final, size_t finallen);

#endif
