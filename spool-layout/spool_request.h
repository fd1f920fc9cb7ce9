/*
 * spool_request.h - a request to a list's request function committed
 * into the spool by a CGI program (spool_request.c): mj_unsubscribe's
 * one-click unsubscribe and mj_listweb's pages queue their changes this
 * way, so that the runner stays the only writer of list state.
 */
#ifndef MJQ_SPOOL_REQUEST_H
#define MJQ_SPOOL_REQUEST_H

#include <stddef.h>
#include <time.h>

#define SPOOL_REQUEST_PRIO 10 /* the default tiers of the list's aliases */

/* spool_request_commit - the message text (len bytes) committed as a
 * request to list@domain; 0 ok, -1 with errno */
int spool_request_commit(const char *spool, const char *domain,
    const char *list, const char *text, size_t len, time_t now);

#endif
