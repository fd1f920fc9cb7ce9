/*
 * request_token.h - the confirmation tokens a request mails out, and the
 * checks every command makes before it acts on a list (request_token.c).
 */
#ifndef MJQ_REQUEST_TOKEN_H
#define MJQ_REQUEST_TOKEN_H

#include "lists.h"
#include "request_cmd.h"
#include "spool_token.h"

/* request_list_ok - the list exists in the request's domain */
int request_list_ok(struct request *r, const char *list);
/* request_list_load - the list's configuration: 1; 0 no such list (the
 * reply says so); -1 error (logged) */
int request_list_load(struct request *r, const char *list, struct listconf *lc);
/* request_member_reply - the reply for to_addr in *to (the main one
 * notes a confirmation mailed to addr), and whether addr is subscribed
 * to list: 1, 0, or -1 error */
int request_member_reply(struct request *r, const char *list, const char *addr,
    const char *to_addr, struct reply **to);
/* request_ours - addr is one of this server's own addresses */
int request_ours(const struct request *r, const char *list, const char *addr);
#define REQUEST_NO_SUB "may not subscribe to"
#define REQUEST_BANNED "is banned from"
/* request_banned - addr is banned from list (bans.h): 1, and the reply
 * says so (verb: "may not subscribe to" or "is banned from"); 0 not;
 * -1 error (logged) */
int request_banned(
    struct request *r, const char *list, const char *addr, const char *verb);
/* request_token - a token for action on list and addr (with mode, for
 * set, or NULL), mailed in to's answer; 0 or -1 */
int request_token(struct request *r, const char *action, const char *list,
    const char *addr, const char *mode, struct reply *to);

/* request_refused - say why a token cannot be used */
void request_refused(
    struct request *r, const struct cmd *c, enum spool_token_status st);
/* request_spend - spend the token whose change has just committed: 0,
 * 1 another runner spent it first (told in the reply), -1 I/O error */
int request_spend(struct request *r, const struct cmd *c);

#endif
