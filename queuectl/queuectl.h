/*
 * queuectl.h - the operator's commands on the spool, apart from the
 * runner as Postfix keeps postqueue and postsuper apart from qmgr: they
 * read and move spool files with the spool's own locks and need no
 * runner state.  mj_queuerun -l, -c, -H, -h, -D and --classify call
 * them.
 */
#ifndef MJQ_QUEUECTL_H
#define MJQ_QUEUECTL_H

#include <stdio.h>

#include "settings.h"

/* queuectl_list - mj_queuerun -l: one line per message of QUEUE/, HOLD/
 * and BAD/ (age, size, function, recipients left of total, next try,
 * last error), then a count; -1 when QUEUE/ cannot be read
 * (queuectl_list.c) */
int queuectl_list(const struct settings *s, FILE *out);
/* queuectl_check - mj_queuerun -c: one line per finding (orphan dot
 * files removed, strays and damaged state quarantined in BAD/), then a
 * summary; returns the problems left, or -1 when QUEUE/ is unreadable
 * (queuectl_check.c) */
long queuectl_check(const struct settings *s, FILE *out);
/* queuectl_admin - mj_queuerun -H, -h, -D: release a message from HOLD/
 * or BAD/ into QUEUE/, hold a queued one, delete one
 * (queuectl_admin.c); a sysexits code */
enum queuectl_admin_op { QUEUECTL_RELEASE, QUEUECTL_HOLD, QUEUECTL_DELETE };
int queuectl_admin(const struct settings *s, enum queuectl_admin_op op,
    const char *arg, FILE *out);
/* queuectl_classify - mj_queuerun --classify: how the runner reads the
 * report in path, for list_at ("list@domain", or NULL): each failed
 * address, its class, the rule and the evidence (queuectl_classify.c);
 * a sysexits code */
int queuectl_classify(const char *path, const char *list_at, FILE *out);

#endif
