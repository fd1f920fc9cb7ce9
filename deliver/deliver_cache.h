/*
 * deliver_cache.h - the SMTP sessions of this runner (deliver_cache.c):
 * idle ones kept for the next batch, and per nexthop how many are open
 * and how many the server took before it refused one.
 */
#ifndef MJQ_DELIVER_CACHE_H
#define MJQ_DELIVER_CACHE_H

#include "smtp.h"

/* A session of this runner, open (or being opened) to nexthop. */
struct deliver_cached {
	struct deliver_cached *next;
	char *nexthop;
	double expires; /* idle in the cache until then */
	int fresh;	/* handed out to be opened, not opened yet */
	struct smtp_session s;
};

/* deliver_cache_get - an idle session to nexthop, or a fresh one to
 * open (counted open from now on); waits while the limit a refusal
 * taught holds, until deadline (epoch s) at the latest; retry (after
 * deliver_cache_failed said wait) under [cluster] also until a lease
 * was taken anew for it (deliver_sessions_grant); NULL: no memory */
struct deliver_cached *deliver_cache_get(
    const char *nexthop, double deadline, int retry);
/* deliver_cache_opened - a fresh session c is open */
void deliver_cache_opened(struct deliver_cached *c);
/* deliver_cache_failed - a fresh session c could not be opened; with
 * refused (the server's answer, negative feedback), the sessions still
 * open are what the server takes for a while.  Frees c; 1 when the
 * batch should wait (deliver_cache_get again), else 0 */
int deliver_cache_failed(struct deliver_cached *c, int refused, double ttl);
/* deliver_cache_put - keep an open session for ttl seconds, or close it
 * (ttl 0, broken, or owed the replies of an envelope sent ahead) */
void deliver_cache_put(struct deliver_cached *c, double ttl);
/* deliver_cache_free - QUIT, close and free a session */
void deliver_cache_free(struct deliver_cached *c);
/* deliver_cache_reap - close idle sessions past their time (all: all) */
void deliver_cache_reap(double now, int all);

#endif
