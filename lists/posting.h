/*
 * posting.h - who may post to a list (posting.c): the list's posting
 * policy applied to a post's author and envelope sender.
 */
#ifndef MJQ_POSTING_H
#define MJQ_POSTING_H

#include <stddef.h>

#include "listconf.h"
#include "settings.h"

/* [list] posting: who may post without a moderator. */
enum posting_policy {
	POSTING_OPEN,	     /* anyone */
	POSTING_SUBSCRIBERS, /* subscribers, moderators, owners, accept_from */
	POSTING_MODERATED,   /* only moderators, owners, accept_from */
	POSTING_OWNERS,	     /* only moderators, owners, accept_from */
};

/* [list] nonmember_action, and what posting_check decides. */
enum posting_action {
	POSTING_ACCEPT, /* (posting_check only) post it */
	POSTING_HOLD,
	POSTING_REJECT,
	POSTING_DISCARD,
};

int posting_parse_policy(const char *text, void *var, char *err, size_t errlen);
int posting_parse_action(const char *text, void *var, char *err, size_t errlen);
const char *posting_policy_name(int policy);
int posting_moderators(const struct listconf *lc, char ***out, size_t *n);
int posting_is_moderator(const struct listconf *lc, const char *addr);
int posting_check(const struct settings *s, const char *domain,
    const char *list, const struct listconf *lc, const char *from,
    const char *sender, char *why, size_t whylen);

#endif
