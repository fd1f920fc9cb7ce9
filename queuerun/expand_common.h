/*
 * expand_common.h - what every function's expansion shares
 * (expand_common.c): the state file, the text in a memfd, the list's
 * config, the move aside.  Used by expand.c, expand_list.c,
 * expand_owner.c, request.c and bounce.c.
 */
#ifndef MJQ_EXPAND_COMMON_H
#define MJQ_EXPAND_COMMON_H

#include <stddef.h>

#include "lists.h"
#include "spool_state.h"

struct queuerun;
struct qr_msg;

/* expand_aside - move a message to BAD/ or HOLD/ (top) with a reason */
void expand_aside(
    struct queuerun *q, struct qr_msg *m, const char *top, const char *why);
/* expand_list_ready - 0 when m's list can be read now; -1 (logged)
 * when its directories or subscribers file are missing, -2 when it was
 * removed on purpose (moved to BAD/) */
int expand_list_ready(struct queuerun *q, struct qr_msg *m);
/* expand_listconf - the config of m's list; -1 (logged) when it cannot
 * be read now, -2 when the list was removed (moved to BAD/) */
int expand_listconf(struct queuerun *q, struct qr_msg *m, struct listconf *lc);
/* expand_state - commit m's state file with these recipients (freed)
 * and mark it active */
int expand_state(struct queuerun *q, struct qr_msg *m,
    struct spool_state_init *init, char **rcpts, size_t n);
/* expand_state_open - start m's state file, recipients to follow */
int expand_state_open(struct queuerun *q, struct qr_msg *m,
    struct spool_state_init *init, struct spool_state_writer *w);
/* expand_state_commit - commit it and mark it active */
int expand_state_commit(struct qr_msg *m, struct spool_state_writer *w);
/* expand_state_empty - the function did the work itself: a state file
 * without recipients, removed with the message at the end of the pass */
int expand_state_empty(
    struct queuerun *q, struct qr_msg *m, const char *kind, const char *from);
/* expand_memfd - the delivered text (a, then b) in an anonymous file */
int expand_memfd(
    struct qr_msg *m, const char *a, size_t alen, const char *b, size_t blen);

#endif
