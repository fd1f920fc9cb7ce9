/*
 * cluster.h - limits shared by several mjq hosts through Redis (libcluster,
 * [cluster] in mjq.conf; README, "Several hosts").
 *
 * The spool stays local to each host; only the limits are shared: per
 * destination key (an opaque string the caller builds) concurrency
 * leases, a rate bucket (GCRA) and the dead-destination time.  A lease
 * is one member of a sorted set scored by its expiry: a runner takes one
 * before a delivery opens a session, keeps it while the session stays
 * open (idle in the cache included), renews it every third of the lease
 * time and gives it back after; a runner that dies stops renewing and
 * its leases expire by themselves.  Each step is one Lua script run with
 * EVALSHA: one round trip, atomic on the server, timed by the server's
 * clock (cluster_script.c).
 *
 * Redis unreachable: every answer is CLUSTER_LOCAL, and the caller
 * schedules on its local table with its share of each limit (limit /
 * expected_nodes); said once in the log, and cluster_state says so for
 * the status.  A reconnect is tried every CLUSTER_RETRY seconds; when it
 * works the leases held are added back and the limits are shared again.
 *
 * One struct cluster per runner process, used by its main thread only.
 */
#ifndef MJQ_CLUSTER_H
#define MJQ_CLUSTER_H

#include "settings.h"

/* How soon a reconnect to Redis is tried after it failed (seconds). */
#define CLUSTER_RETRY 1.0
/* How often a runner with leases held for idle sessions looks whether
 * they closed (seconds). */
#define CLUSTER_IDLE_POLL 0.25

/* What cluster_take answers. */
enum cluster_answer {
	CLUSTER_GO,    /* a lease is held for the delivery: start it */
	CLUSTER_FULL,  /* every lease of the key is held: wait */
	CLUSTER_RATE,  /* the shared rate bucket says not yet: wait */
	CLUSTER_DEAD,  /* another node found the destination dead */
	CLUSTER_LOCAL, /* Redis cannot be reached: use the local shares */
};

/* What cluster_state says (the status, spool_dest's header). */
enum cluster_mode {
	CLUSTER_OFF,	  /* not configured */
	CLUSTER_SHARED,	  /* limits shared through Redis */
	CLUSTER_FALLBACK, /* Redis unreachable: local shares */
};

struct cluster;

/* The sessions of this runner open to a lease's tag (idle ones
 * included): leases are kept for them. */
typedef int cluster_open_fn(void *arg, const char *tag);

/* cluster_open - the [cluster] settings; NULL when off ([cluster] redis
 * empty) or without memory (said in the log).  Redis is reached on
 * first use. */
struct cluster *cluster_open(const struct settings *s);
/* cluster_close - give every lease back and disconnect */
void cluster_close(struct cluster *c);
/* cluster_take - may a delivery to key start?  limit: leases of the key
 * over all nodes (0: no limit); interval: seconds between starts over
 * all nodes (0: none); tag: what cluster_open_fn is asked about.  *wait:
 * seconds until it may (FULL: a lease expires at the latest; RATE: the
 * bucket; DEAD: the probe time) */
enum cluster_answer cluster_take(struct cluster *c, const char *key,
    const char *tag, int limit, double interval, double now, double *wait);
/* cluster_done - a delivery CLUSTER_GO let start has ended; open: the
 * sessions to its tag still open, whose leases are kept */
void cluster_done(struct cluster *c, const char *key, int open, double now);
/* cluster_dead - the destination died (for secs seconds), or came back
 * (secs 0): told to every node */
void cluster_dead(struct cluster *c, const char *key, double secs, double now);
/* cluster_tick - renew the leases held, give back those of sessions
 * that closed, reconnect; returns when it wants to be called again
 * (epoch s), 0 for no need */
double cluster_tick(
    struct cluster *c, double now, cluster_open_fn *open, void *arg);
/* cluster_state - shared or fallback (CLUSTER_OFF for NULL), and since
 * when (epoch s) */
enum cluster_mode cluster_state(const struct cluster *c, double *since);
/* cluster_share - limit / expected nodes, rounded up: this node's share
 * of a limit while Redis cannot be reached */
int cluster_share(const struct cluster *c, int limit);
/* cluster_nodes - the expected nodes (1 for NULL) */
int cluster_nodes(const struct cluster *c);

#endif
