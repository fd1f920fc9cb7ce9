/*
 * posting_rules.h - the rules every post meets whoever sends it
 * (posting_rules.c): emergency moderation and the recipient limit.
 */
#ifndef MJQ_POSTING_RULES_H
#define MJQ_POSTING_RULES_H

#include <stddef.h>

#include "listconf.h"

int posting_rules_check(const struct listconf *lc, const char *text, size_t len,
    char *why, size_t whylen);

#endif
