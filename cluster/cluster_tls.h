/*
 * cluster_tls.h - Redis over TLS (cluster_tls.c): OpenSSL carries the
 * bytes, hiredis only encodes the commands and parses the replies, so
 * the hiredis 0.14 of Debian 12 (no hiredis_ssl) is enough.
 * cluster_redis.c is its one caller: the rest of libcluster does not
 * know which transport is under it.
 */
#ifndef MJQ_CLUSTER_TLS_H
#define MJQ_CLUSTER_TLS_H

#include <stddef.h>

#include <hiredis/hiredis.h>

struct cluster_tls;

/* cluster_wait - poll fd for events until deadline (clock_now's time):
 * 1 ready, 0 not by then; for both transports (cluster_redis.c) */
int cluster_wait(int fd, short events, double deadline);

/* cluster_tls_open - a verified TLS connection to addr (host:port): the
 * server's certificate checked against ca_file ("": the system store)
 * and for the host's name (or IP address); connect and handshake each
 * within timeout_ms.  NULL, and why (whylen bytes) when not. */
struct cluster_tls *cluster_tls_open(const char *addr, const char *ca_file,
    int timeout_ms, char *why, size_t whylen);
/* cluster_tls_command - send argv, return its reply (freeReplyObject);
 * NULL when the connection failed or timed out (cluster_tls_error) */
redisReply *cluster_tls_command(
    struct cluster_tls *t, int argc, const char **argv);
/* cluster_tls_error - why the last command failed */
const char *cluster_tls_error(const struct cluster_tls *t);
/* cluster_tls_close - close and free (NULL: nothing) */
void cluster_tls_close(struct cluster_tls *t);

#endif
