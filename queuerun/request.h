/*
 * request.h - the request and majordomo functions (request.c), the
 * commands (request_cmd.c), the replies (request_reply.c) and bounce
 * handling (bounce.c, bounce_parse.c): list management by mail.
 */
#ifndef MJQ_REQUEST_H
#define MJQ_REQUEST_H

#include <stdio.h>

#include "cmd_parse.h"
#include "queuerun_impl.h"
#include "spool_token.h"

/* One generated message: to one address, text built up as commands run. */
struct reply {
	char to[SPOOL_ADDR_MAX + 1];
	char token[CMD_TOKEN_MAX + 1]; /* the subject, when one token */
	int ntokens;
	int notice;		       /* sent on its own behalf, not an answer */
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

/* What one request knows while its commands run. */
struct request {
	struct queuerun *q;
	struct qr_msg *m;
	char requester[SPOOL_ADDR_MAX + 1];
	struct reply_set rs;
	struct reply *main; /* the requester's answer */
};

/* request.c */
int request_process(
    struct queuerun *q, struct qr_msg *m, const char *text, size_t len);
int request_finish(
    struct queuerun *q, struct qr_msg *m, const char *kind, const char *from);
const char *request_automatic(const char *text, size_t len, const char *sender);

/* request_cmd.c */
int request_cmd(struct request *r, const struct cmd *c);
int request_field(const char *text, const char *key, char *out, size_t outlen);
const char *request_token_why(enum spool_token_status st);

/* request_reply.c */
void reply_init(struct reply_set *rs, const char *from, const char *subject,
    const char *msgid);
struct reply *reply_for(struct reply_set *rs, const char *to);
int reply_commit(struct queuerun *q, struct qr_msg *m, struct reply_set *rs);
void reply_free(struct reply_set *rs);

/* bounce.c */
int bounce_process(
    struct queuerun *q, struct qr_msg *m, const char *text, size_t len);

/* bounce_parse.c */
#define BOUNCE_ADDRS_MAX 20
struct bounce_found {
	char addr[BOUNCE_ADDRS_MAX][SPOOL_ADDR_MAX + 1];
	size_t n;
	int is_bounce; /* it looks like a delivery report */
	int delayed;   /* a warning only: nothing failed */
};
void bounce_parse(const struct qr_msg *m, const char *text, size_t len,
    struct bounce_found *bf);

#endif
