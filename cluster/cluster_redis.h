/*
 * cluster_redis.h - the connection to Redis of one runner
 * (cluster_redis.c): connect, authenticate, load the scripts, run one,
 * and know when Redis is down.
 */
#ifndef MJQ_CLUSTER_REDIS_H
#define MJQ_CLUSTER_REDIS_H

#include <hiredis/hiredis.h>

#include "cluster.h"
#include "cluster_script.h"
#include "cluster_tls.h"

struct cluster_redis {
	redisContext *ctx;	 /* plain: NULL when not connected */
	struct cluster_tls *tls; /* tls = yes: NULL when not connected */
	int use_tls;
	char ca_file[PATH_MAX];
	char why[160]; /* why the TLS connection failed */
	char addr[PATH_MAX];
	char password[128];
	char name[128]; /* CLIENT SETNAME: mjq:node:pid ("": none) */
	int timeout_ms;
	char sha[CLUSTER_SCRIPT_N][41];
	enum cluster_mode mode; /* SHARED or FALLBACK */
	double since;		/* in that mode since (epoch s) */
	double next_try;	/* no reconnect before this */
	int reconnected;	/* came back since the last look */
};

/* cluster_redis_init - the settings; not connected yet */
void cluster_redis_init(
    struct cluster_redis *r, const struct cluster_settings *cs);
/* cluster_redis_connected - a connection is open (whichever transport):
 * 1, else 0; connects nothing */
int cluster_redis_connected(const struct cluster_redis *r);
/* cluster_redis_up - connected (or reconnected now, when due): 1, else 0 */
int cluster_redis_up(struct cluster_redis *r, double now);
/* cluster_redis_run - run a script with nkeys keys and nargs arguments;
 * the reply (freeReplyObject), or NULL when Redis failed (now down) or
 * answered an error (logged) */
redisReply *cluster_redis_run(struct cluster_redis *r, enum cluster_script s,
    int nkeys, const char *const *keys, int nargs, const char *const *args,
    double now);
/* cluster_redis_command - a plain command (argv); as cluster_redis_run */
redisReply *cluster_redis_command(
    struct cluster_redis *r, int argc, const char **argv, double now);
/* cluster_redis_close - disconnect */
void cluster_redis_close(struct cluster_redis *r);

#endif
