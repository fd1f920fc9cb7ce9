/*
 * request_set.h - the set command: how a subscriber gets a list
 * (request_set.c).
 */
#ifndef MJQ_REQUEST_SET_H
#define MJQ_REQUEST_SET_H

#include "request_cmd.h"

/* request_set - set <list> <mode> [address]: a token to confirm it */
int request_set(struct request *r, const struct cmd *c);
/* request_set_confirm - the confirmed token's text: the mode set, the
 * token spent; 0 or -1 */
int request_set_confirm(struct request *r, const struct cmd *c,
    const char *text, const char *list, const char *addr);

#endif
