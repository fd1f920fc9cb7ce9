/*
 * spool_unsub_rate.h - one-click unsubscribe requests counted, per
 * address and in all: $spool/state/unsubscribe.
 *
 * One line per key counted in its current period: "<period end> <count>
 * <key>", the key "*" for all requests, "<address> <list>@<domain>" for
 * one address of one list, so cat shows who is asking how much.  Shared
 * by every mj_unsubscribe (lockedit.h's lock).
 */
#ifndef MJQ_SPOOL_UNSUB_RATE_H
#define MJQ_SPOOL_UNSUB_RATE_H

#include <time.h>

#define SPOOL_UNSUB_RATE_FILE "state/unsubscribe"
#define SPOOL_SEARCH_RATE_FILE "state/search" /* mj_archsearch's */
#define SPOOL_UNSUB_RATE_ALL "*"

/* A bound: at most limit requests per period seconds (0: no bound). */
struct spool_unsub_bound {
	long long limit, period;
};

enum spool_unsub_rate {
	SPOOL_UNSUB_OK,	       /* counted: it may go */
	SPOOL_UNSUB_ADDR_FULL, /* this address asked too often */
	SPOOL_UNSUB_ALL_FULL,  /* too many requests in all */
	SPOOL_UNSUB_ERROR,
};

enum spool_unsub_rate spool_unsub_rate_take(const char *spool, const char *key,
    const struct spool_unsub_bound *addr, const struct spool_unsub_bound *all,
    time_t now);

enum spool_unsub_rate spool_rate_file_take(const char *spool, const char *file,
    const char *key, const struct spool_unsub_bound *addr,
    const struct spool_unsub_bound *all, time_t now);

#endif
