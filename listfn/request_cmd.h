/*
 * request_cmd.h - one command of a request, run (request_cmd.c): what a
 * request knows while its commands run.
 */
#ifndef MJQ_REQUEST_CMD_H
#define MJQ_REQUEST_CMD_H

#include "lists.h"
#include "listfn_msg.h"
#include "reply.h"
#include "spool_state.h"

/* What one request knows while its commands run. */
struct request {
	struct listfn_env *env;
	struct listfn_msg *m;
	char requester[SPOOL_ADDR_MAX + 1];
	struct reply_set rs;
	struct reply *main; /* the requester's answer */
};

/* request_cmd - run one command; its answer goes to r's replies */
int request_cmd(struct request *r, const struct cmd *c);

#endif
