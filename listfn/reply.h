/*
 * reply.h - generated answers and notices (reply.c): one message per
 * address, text built up as commands run, committed into QUEUE/ as
 * generated mail.  Used by requests, moderation and bounce handling.
 */
#ifndef MJQ_REPLY_H
#define MJQ_REPLY_H

#include <stddef.h>
#include <stdio.h>

#include "lists.h"
#include "spool_state.h"

struct listfn_env;
struct listfn_msg;

/* One generated message: to one address, text built up as commands run. */
struct reply {
	char to[SPOOL_ADDR_MAX + 1];
	char token[CMD_TOKEN_MAX + 1]; /* the subject, when one token */
	int ntokens;
	int notice; /* sent on its own behalf, not an answer */
	int rated;  /* reply_rate: 0 not asked, 1 within the limit, -1 not */
	char subject[CMD_LINE_MAX + 1]; /* when set, the Subject */
	FILE *fp;
	char *body;
	size_t len;
};

struct reply_set {
	struct reply **r;
	size_t n, cap;
	char from[SPOOL_ADDR_MAX + 1];	/* the address that answers */
	char subject[CMD_LINE_MAX + 1]; /* what is answered */
	char msgid[SPOOL_ADDR_MAX + 1]; /* its Message-Id, for threads */
};

/* reply_automatic - why a message must not be answered, or NULL */
const char *reply_automatic(const char *text, size_t len, const char *sender);
/* reply_init - an empty set answering from, about subject and msgid */
void reply_init(struct reply_set *rs, const char *from, const char *subject,
    const char *msgid);
/* reply_for - the message to an address, made on first use; NULL */
struct reply *reply_for(struct reply_set *rs, const char *to);
/* reply_rate - 1 when the message will be sent (its address is within
 * the reply rate limit: counted once), 0 when it will not, -1 on error */
int reply_rate(struct listfn_env *env, struct listfn_msg *m, struct reply *r);
/* reply_commit - every message of the set into QUEUE/ */
int reply_commit(
    struct listfn_env *env, struct listfn_msg *m, struct reply_set *rs);
/* reply_free - free the set */
void reply_free(struct reply_set *rs);

#endif
