/*
 * expand_owner.h - the owner function (expand_owner.c): mail to
 * <list>-owner goes to the owners, unless it is a bounce (bounce.c).
 */
#ifndef MJQ_EXPAND_OWNER_H
#define MJQ_EXPAND_OWNER_H

#include <stddef.h>

struct queuerun;
struct qr_msg;

/* expand_owner - snapshot the owners into the state file */
int expand_owner(
    struct queuerun *q, struct qr_msg *m, const char *text, size_t len);

#endif
