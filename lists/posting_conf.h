/*
 * posting_conf.h - the words of [list] posting and nonmember_action
 * (posting_conf.c): parsed for the list's configuration table
 * (listconf.c), named in posting.c's reasons.
 */
#ifndef MJQ_POSTING_CONF_H
#define MJQ_POSTING_CONF_H

#include <stddef.h>

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

int posting_conf_policy(const char *text, void *var, char *err, size_t errlen);
int posting_conf_action(const char *text, void *var, char *err, size_t errlen);
const char *posting_conf_name(int policy);

#endif
