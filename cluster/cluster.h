/*
 * cluster.h - limits shared by several mjq hosts through Redis (libcluster,
 * [cluster] in mjq.conf: cluster_settings.h; docs/cluster.md).
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
 * the status.  No session is kept idle meanwhile (each tick closes
 * them): their leases are no longer renewed, and once they expire the
 * other nodes use them, and the share counts deliveries, not sessions
 * cached by the node's other runners.  So a node cut off from Redis
 * while the others still reach it (a split) keeps no more sessions
 * than its share plus the deliveries that were running, and those end
 * long before its leases expire (at least two thirds of lease_time
 * after the last renewal).  A reconnect is tried every
 * CLUSTER_RETRY seconds; when it works the leases held are added back and the
 * limits are shared again.
 *
 * One struct cluster per runner process, used by its main thread only.
 */
#ifndef MJQ_CLUSTER_H
#define MJQ_CLUSTER_H

#include "cluster_settings.h"

/* How soon a reconnect to Redis is tried after it failed (seconds). */
#define CLUSTER_RETRY 1.0
/* How often a runner holding leases looks whether another node waits
 * for one (seconds): the time a node that holds more than its share
 * takes to hear of it. */
#define CLUSTER_SHARE_POLL 0.01

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

/* What cluster_tick asks the caller of a lease's tag: its sessions open
 * (idle ones included), whose leases are kept, and the new sessions
 * the receiver refused (421) since the last tick, which teach every
 * node its limit (cluster_learn) for learn seconds and whose leases
 * are given back. */
struct cluster_sessions {
	int (*open)(const char *tag);
	int (*refused)(const char *tag);
	/* the deliveries refused a session that wait for a lease taken
	 * anew, and one such lease given to one of them (-1: none waits
	 * any more, the lease is given back) */
	int (*waiting)(const char *tag);
	int (*grant)(const char *tag);
	/* close max idle sessions to tag (-1: all): another node waits
	 * for a lease, or this one was cut off from Redis; how many of
	 * them the receiver answered the QUIT of (it ended them) */
	int (*yield)(const char *tag, int max);
	/* deliveries to tag waiting or running: 0 when this runner is done
	 * with the destination (for now) */
	int (*pending)(void *arg, const char *tag);
	void *arg;
	double learn;
};

/* cluster_open - the [cluster] settings; NULL when off ([cluster] redis
 * empty) or without memory (said in the log).  Redis is reached on
 * first use. */
struct cluster *cluster_open(const struct cluster_settings *cs);
/* cluster_close - give every lease back and disconnect */
void cluster_close(struct cluster *c);
/* A destination's limits over all nodes, as this node knows them. */
struct cluster_limits {
	int limit;	 /* sessions (leases) at once; 0: none */
	double interval; /* seconds between starts; 0: none */
	double learn;	 /* how long a session limit the receiver taught
			    holds before one more is tried (seconds) */
	int initial;	 /* sessions at first, over all nodes */
};

/* cluster_take - may a delivery to key start?  tag: what
 * cluster_tick asks about (struct cluster_sessions).  *wait: seconds until it
 * may (FULL: a lease expires at the latest; RATE: the bucket; DEAD: the probe)
 */
enum cluster_answer cluster_take(struct cluster *c, const char *key,
    const char *tag, const struct cluster_limits *lim, double now,
    double *wait);
/* cluster_done - a delivery CLUSTER_GO let start has ended; open: the
 * sessions to its tag still open, whose leases are kept */
void cluster_done(struct cluster *c, const char *key, int open, double now);
/* cluster_learn - the receiver refused `refused` sessions (421) while
 * the leases held were its sessions: the limit it takes, for all nodes,
 * until learn seconds have passed */
void cluster_learn(
    struct cluster *c, const char *key, int refused, double learn, double now);
/* cluster_dead - the destination died (for secs seconds), or came back
 * (secs 0): told to every node */
void cluster_dead(struct cluster *c, const char *key, double secs, double now);
/* cluster_tick - renew the leases held, give back those of sessions
 * that closed, learn from refusals, reconnect; returns when it wants to
 * be called again (epoch s), 0 for no need */
double cluster_tick(
    struct cluster *c, double now, const struct cluster_sessions *ss);
/* cluster_state - shared or fallback (CLUSTER_OFF for NULL), and since
 * when (epoch s) */
enum cluster_mode cluster_state(const struct cluster *c, double *since);
/* cluster_share - limit / expected nodes, rounded up: this node's share
 * of a limit while Redis cannot be reached */
int cluster_share(const struct cluster *c, int limit);
/* cluster_nodes - the expected nodes (1 for NULL) */
int cluster_nodes(const struct cluster *c);

#endif
