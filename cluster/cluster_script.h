/*
 * cluster_script.h - the Lua scripts Redis runs for the shared limits
 * (cluster_script.c): their names, sources, and the keys of one
 * destination.
 */
#ifndef MJQ_CLUSTER_SCRIPT_H
#define MJQ_CLUSTER_SCRIPT_H

#include <stddef.h>

enum cluster_script {
	CLUSTER_SCRIPT_TAKE,   /* dead? lease? rate? then take */
	CLUSTER_SCRIPT_RENEW,  /* push the expiry of leases held */
	CLUSTER_SCRIPT_DEAD,   /* set or clear the dead time */
	CLUSTER_SCRIPT_LEARN,  /* the server refused a session: cap */
	CLUSTER_SCRIPT_SHARE,  /* another node waits: this one's surplus */
	CLUSTER_SCRIPT_WANT,   /* a node was refused a lease (the hint) */
	CLUSTER_SCRIPT_WANTED, /* do nodes wait, others than this one? */
	CLUSTER_SCRIPT_N
};

/* What CLUSTER_SCRIPT_TAKE answers first ({code, ms}). */
#define CLUSTER_TAKE_GO 0
#define CLUSTER_TAKE_FULL 1
#define CLUSTER_TAKE_RATE 2
#define CLUSTER_TAKE_DEAD 3

#define CLUSTER_RKEY_MAX 512

/* How long a node that found every lease held is said to wait (ms, as
 * text: a script's and a command's argument); it asks again sooner. */
#define CLUSTER_WANT_MS "500"
/* A sorted set of the nodes a TAKE found every lease held for lately,
 * whichever the destination (WANT, for CLUSTER_WANT_MS): the others
 * ask SHARE only while another node than theirs is in it (WANTED). */
#define CLUSTER_WANTED_KEY "mjq:wanted"

/* The Redis keys of one destination, "mjq:{KEY}:what" (one hash slot: a
 * Redis Cluster runs each script on one node). */
struct cluster_rkeys {
	char lease[CLUSTER_RKEY_MAX], rate[CLUSTER_RKEY_MAX],
	    dead[CLUSTER_RKEY_MAX], cap[CLUSTER_RKEY_MAX],
	    wait[CLUSTER_RKEY_MAX];
};

/* cluster_script_source - the Lua text of a script */
const char *cluster_script_source(enum cluster_script s);
/* cluster_script_keys - the Redis keys of destination key; -1 when they
 * do not fit */
int cluster_script_keys(const char *key, struct cluster_rkeys *k);

#endif
