/*
 * moderate_cmd.h - the moderators' commands approve, reject and discard
 * (moderate_cmd.c), run as commands of a request to <list>-request.
 */
#ifndef MJQ_MODERATE_CMD_H
#define MJQ_MODERATE_CMD_H

struct request;
struct cmd;

/* moderate_cmd - one moderation command; -1 when the request must be
 * tried again later */
int moderate_cmd(struct request *r, const struct cmd *c);

#endif
