/*
 * unsub_rate.h - a request from a web page counted against [unsubscribe]
 * address_requests_per_hour (per key) and requests_per_minute (in all)
 * before it is queued (unsub_rate.c): mj_unsubscribe's and mj_listweb's
 * one bound.
 */
#ifndef MJQ_UNSUB_RATE_H
#define MJQ_UNSUB_RATE_H

#include <time.h>

#include "lists_settings.h"
#include "settings.h"

/* unsub_rate - count a request for key: 0 go on, 429 the key asked too
 * often, 503 too many in all, -1 the count cannot be kept (logged) */
int unsub_rate(const struct settings *s, const struct lists_settings *ls,
    const char *key, time_t now);

#endif
