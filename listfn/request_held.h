/*
 * request_held.h - the held command: a moderator asks for the link to
 * the page of a list's held posts (request_held.c).
 */
#ifndef MJQ_REQUEST_HELD_H
#define MJQ_REQUEST_HELD_H

#include "request_cmd.h"

/* The action of the token the link carries. */
#define REQUEST_HELD_ACTION "moderate-queue"

/* request_held - held <list>: to a moderator, a link with a token to the
 * list's held posts page; to anyone else, no more than that it is for
 * moderators; 0 or -1 */
int request_held(struct request *r, const struct cmd *c);
/* request_options - options <list>: the requester's options link, to
 * the requester; 0 or -1 */
int request_options(struct request *r, const struct cmd *c);

#endif
