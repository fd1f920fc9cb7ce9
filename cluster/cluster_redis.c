/*
 * cluster_redis.c - the connection to Redis of one runner.
 *
 * The address is a unix socket path (it starts with '/') or host:port.
 * Every command has timeout_ms to answer, the whole reply read within
 * it whatever the server's pace; a connection that fails,
 * times out or breaks puts the runner into FALLBACK: it is logged once
 * (the cause named), and a reconnect is tried at the next use
 * CLUSTER_RETRY seconds later at the soonest, so a Redis that is down
 * costs one failed connect a second, never a wait per delivery.  When a
 * reconnect works (AUTH and SCRIPT LOAD included) that is logged once
 * too, and `reconnected` tells the caller to add its leases back.
 * Each connection is named (CLIENT SETNAME mjq:NODE:PID), so CLIENT
 * LIST in redis-cli shows which node and runner it is.
 *
 * The transport is hiredis's own connection, or with [cluster] tls =
 * yes cluster_tls.c (OpenSSL, as Debian 12's hiredis 0.14 has no TLS);
 * only the few functions below the settings know which.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "cluster_redis.h"
#include "cluster_tls.h"
#include "log.h"

/* cluster_redis_init - the settings; not connected yet */
void
cluster_redis_init(struct cluster_redis *r, const struct cluster_settings *cs)
{
	memset(r, 0, sizeof(*r));
	(void)strlcpy(r->addr, cs->cluster_redis, sizeof(r->addr));
	(void)strlcpy(r->password, cs->cluster_password, sizeof(r->password));
	r->timeout_ms = (int)cs->cluster_timeout_ms;
	r->use_tls = cs->cluster_tls;
	(void)strlcpy(r->ca_file, cs->cluster_tls_ca_file, sizeof(r->ca_file));
	r->mode = CLUSTER_SHARED;
}

/* cluster_redis_drop - close the connection, whichever transport */
static void
cluster_redis_drop(struct cluster_redis *r)
{
	if (r->ctx != NULL)
		redisFree(r->ctx);
	cluster_tls_close(r->tls);
	r->ctx = NULL;
	r->tls = NULL;
}

/* cluster_redis_plain - a command on hiredis's own connection: written
 * and its whole reply read within timeout_ms (hiredis's timeout bounds
 * each read alone, so a server that trickles its reply a byte at a time
 * would hold the runner for as long as it likes); NULL with why */
static redisReply *
cluster_redis_plain(struct cluster_redis *r, int argc, const char **argv)
{
	double deadline = clock_now() + (double)r->timeout_ms / 1000;
	redisContext *c = r->ctx;
	void *reply = NULL;
	int done = 0;

	if (redisAppendCommandArgv(c, argc, argv, NULL) != REDIS_OK)
		return NULL;
	while (!done) {
		if (!cluster_wait(c->fd, POLLOUT, deadline))
			goto timeout;
		if (redisBufferWrite(c, &done) != REDIS_OK)
			return NULL;
	}
	for (;;) {
		if (redisGetReplyFromReader(c, &reply) != REDIS_OK)
			return NULL;
		if (reply != NULL)
			return reply;
		if (!cluster_wait(c->fd, POLLIN, deadline))
			goto timeout;
		if (redisBufferRead(c) != REDIS_OK)
			return NULL;
	}
timeout:
	(void)snprintf(r->why, sizeof(r->why),
	    "no whole reply within %d ms: timed out", r->timeout_ms);
	return NULL;
}

/* cluster_redis_argv - send a command, its reply or NULL (why:
 * cluster_redis_error) */
static redisReply *
cluster_redis_argv(struct cluster_redis *r, int argc, const char **argv)
{
	if (r->tls != NULL)
		return cluster_tls_command(r->tls, argc, argv);
	return cluster_redis_plain(r, argc, argv);
}

/* cluster_redis_error - why the connection or the last command failed */
static const char *
cluster_redis_error(const struct cluster_redis *r)
{
	if (r->tls != NULL)
		return cluster_tls_error(r->tls);
	if (r->ctx != NULL && r->ctx->err)
		return r->ctx->errstr;
	return r->why;
}

/* cluster_redis_down - the connection failed: close it, say so once */
static void
cluster_redis_down(struct cluster_redis *r, const char *why, double now)
{
	if (r->mode != CLUSTER_FALLBACK)
		log_warnx("cluster: Redis at %s unreachable (%s); "
			  "limits are this node's local shares until it "
			  "returns",
		    r->addr, why);
	if (r->mode != CLUSTER_FALLBACK || r->since == 0)
		r->since = now;
	r->mode = CLUSTER_FALLBACK;
	r->next_try = now + CLUSTER_RETRY;
	cluster_redis_drop(r);
}

/* cluster_redis_connect - connect to the address: 0, or -1 (why:
 * cluster_redis_error) */
static int
cluster_redis_connect(struct cluster_redis *r)
{
	struct timeval tv = {
	    r->timeout_ms / 1000, (r->timeout_ms % 1000) * 1000};
	char host[256], *colon;
	long port;

	(void)strlcpy(r->why, "bad address or no memory", sizeof(r->why));
	if (r->use_tls)
		return (r->tls = cluster_tls_open(r->addr, r->ca_file,
			    r->timeout_ms, r->why, sizeof(r->why))) == NULL
			   ? -1
			   : 0;
	if (r->addr[0] == '/')
		r->ctx = redisConnectUnixWithTimeout(r->addr, tv);
	else if (strlcpy(host, r->addr, sizeof(host)) < sizeof(host) &&
		 (colon = strrchr(host, ':')) != NULL) {
		*colon = '\0';
		port = strtol(colon + 1, NULL, 10);
		r->ctx = redisConnectWithTimeout(host, (int)port, tv);
	}
	if (r->ctx == NULL || r->ctx->err)
		return -1;
	if (redisSetTimeout(r->ctx, tv) != REDIS_OK) {
		(void)strlcpy(r->why, "cannot set the timeout", sizeof(r->why));
		redisFree(r->ctx);
		r->ctx = NULL;
		return -1;
	}
	return 0;
}

/* cluster_redis_load - AUTH, then SCRIPT LOAD of every script; NULL, or
 * why not */
static const char *
cluster_redis_load(struct cluster_redis *r)
{
	const char *argv[3];
	redisReply *rep;
	int i;

	if (r->password[0] != '\0') {
		argv[0] = "AUTH";
		argv[1] = r->password;
		if ((rep = cluster_redis_argv(r, 2, argv)) == NULL)
			return cluster_redis_error(r);
		i = rep->type == REDIS_REPLY_ERROR;
		freeReplyObject(rep);
		if (i)
			return "AUTH refused";
	}
	/* A name Redis refuses (a space in node_name) only goes without */
	if (r->name[0] != '\0') {
		argv[0] = "CLIENT";
		argv[1] = "SETNAME";
		argv[2] = r->name;
		if ((rep = cluster_redis_argv(r, 3, argv)) == NULL)
			return cluster_redis_error(r);
		freeReplyObject(rep);
	}
	for (i = 0; i < CLUSTER_SCRIPT_N; i++) {
		argv[0] = "SCRIPT";
		argv[1] = "LOAD";
		argv[2] = cluster_script_source((enum cluster_script)i);
		if ((rep = cluster_redis_argv(r, 3, argv)) == NULL)
			return cluster_redis_error(r);
		if (rep->type != REDIS_REPLY_STRING || rep->len != 40) {
			freeReplyObject(rep);
			return "SCRIPT LOAD failed";
		}
		memcpy(r->sha[i], rep->str, 41);
		freeReplyObject(rep);
	}
	return NULL;
}

/* cluster_redis_connected - a connection is open */
int
cluster_redis_connected(const struct cluster_redis *r)
{
	return r->ctx != NULL || r->tls != NULL;
}

/* cluster_redis_up - connected, or reconnected now when due */
int
cluster_redis_up(struct cluster_redis *r, double now)
{
	const char *why;

	if (cluster_redis_connected(r))
		return 1;
	if (now < r->next_try)
		return 0;
	if (cluster_redis_connect(r) == -1) {
		cluster_redis_down(r, cluster_redis_error(r), now);
		return 0;
	}
	if ((why = cluster_redis_load(r)) != NULL) {
		(void)strlcpy(r->why, why, sizeof(r->why));
		cluster_redis_down(r, r->why, now);
		return 0;
	}
	if (r->mode == CLUSTER_FALLBACK) {
		log_warnx("cluster: Redis at %s is back; limits are "
			  "shared again",
		    r->addr);
		r->reconnected = 1;
	}
	if (r->mode == CLUSTER_FALLBACK || r->since == 0)
		r->since = now;
	r->mode = CLUSTER_SHARED;
	return 1;
}

/* cluster_redis_answer - a reply, checked: NULL when Redis failed (now
 * down) or answered an error */
static redisReply *
cluster_redis_answer(struct cluster_redis *r, redisReply *rep, double now)
{
	if (rep == NULL) {
		(void)strlcpy(r->why, cluster_redis_error(r), sizeof(r->why));
		cluster_redis_down(r, r->why, now);
		return NULL;
	}
	if (rep->type == REDIS_REPLY_ERROR) {
		/* Not what the scripts expect: no sharing on its word. */
		cluster_redis_down(r, rep->str, now);
		freeReplyObject(rep);
		return NULL;
	}
	return rep;
}

/* cluster_redis_command - a plain command */
redisReply *
cluster_redis_command(
    struct cluster_redis *r, int argc, const char **argv, double now)
{
	if (!cluster_redis_up(r, now))
		return NULL;
	return cluster_redis_answer(r, cluster_redis_argv(r, argc, argv), now);
}

/* How many keys and arguments a script call takes at most. */
#define CLUSTER_REDIS_ARGS 64

/* cluster_redis_run - EVALSHA; a script Redis forgot (restarted, or
 * SCRIPT FLUSH) is loaded again and run once more */
redisReply *
cluster_redis_run(struct cluster_redis *r, enum cluster_script s, int nkeys,
    const char *const *keys, int nargs, const char *const *args, double now)
{
	const char *argv[CLUSTER_REDIS_ARGS + 3];
	char nk[16];
	redisReply *rep;
	const char *why;
	int i, argc = 0, again;

	if (nkeys + nargs > CLUSTER_REDIS_ARGS || !cluster_redis_up(r, now))
		return NULL;
	argv[argc++] = "EVALSHA";
	argv[argc++] = r->sha[s];
	(void)snprintf(nk, sizeof(nk), "%d", nkeys);
	argv[argc++] = nk;
	for (i = 0; i < nkeys; i++)
		argv[argc++] = keys[i];
	for (i = 0; i < nargs; i++)
		argv[argc++] = args[i];
	rep = cluster_redis_argv(r, argc, argv);
	again = rep != NULL && rep->type == REDIS_REPLY_ERROR &&
		strncasecmp(rep->str, "NOSCRIPT", 8) == 0;
	if (again) {
		freeReplyObject(rep);
		if ((why = cluster_redis_load(r)) != NULL) {
			cluster_redis_down(r, why, now);
			return NULL;
		}
		rep = cluster_redis_argv(r, argc, argv);
	}
	return cluster_redis_answer(r, rep, now);
}

/* cluster_redis_close - disconnect */
void
cluster_redis_close(struct cluster_redis *r)
{
	cluster_redis_drop(r);
}
