/*
 * posting.h - who may post to a list (posting.c): the list's posting
 * policy applied to a post's author and envelope sender.
 */
#ifndef MJQ_POSTING_H
#define MJQ_POSTING_H

#include <stddef.h>

#include "listconf.h"
#include "posting_conf.h"
#include "settings.h"

int posting_moderators(const struct listconf *lc, char ***out, size_t *n);
int posting_is_moderator(const struct listconf *lc, const char *addr);
int posting_check(const struct settings *s, const char *domain,
    const char *list, const struct listconf *lc, const char *from,
    const char *sender, char *why, size_t whylen);

#endif
