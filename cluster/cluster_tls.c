/*
 * cluster_tls.c - Redis over TLS with OpenSSL and the protocol pieces
 * of hiredis 0.14 (redisFormatCommandArgv to encode a command, a
 * redisReader to parse its reply): no RESP parser of our own.
 *
 * The socket is non-blocking; every wait is a poll, and the whole of a
 * connect with its handshake, and the whole of a command (its write and
 * every read of its reply), has timeout_ms: a server that trickles its
 * reply a byte at a time, each within the time, still runs out of it.  The
 * server's certificate must verify against [cluster] tls_ca_file (or the system
 * store) and name the host of [cluster] redis (its IP address when that is
 * one): a certificate that does not is a connection that failed, never one used
 * unverified.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "clock.h"
#include "cluster_tls.h"

struct cluster_tls {
	int fd;
	SSL_CTX *ctx;
	SSL *ssl;
	redisReader *reader;
	int timeout_ms;
	double deadline; /* of the connect or command under way */
	char err[160];
};

/* cluster_wait - poll fd for events until deadline (clock_now's
 * time); 1 ready, 0 not by then */
int
cluster_wait(int fd, short events, double deadline)
{
	struct pollfd p = {fd, events, 0};
	double left;
	int n;

	do {
		if ((left = deadline - clock_now()) <= 0)
			return 0;
		n = poll(&p, 1, (int)(left * 1000) + 1);
	} while (n == -1 && errno == EINTR);
	return n == 1;
}

/* cluster_tls_dial - a connected non-blocking socket to host:port, or
 * -1 with why */
static int
cluster_tls_dial(const char *host, const char *port, double deadline, char *why,
    size_t whylen)
{
	struct addrinfo hints, *res, *ai;
	socklen_t len;
	int fd = -1, e, soerr;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo(host, port, &hints, &res)) != 0) {
		(void)snprintf(why, whylen, "%s: %s", host, gai_strerror(e));
		return -1;
	}
	(void)snprintf(why, whylen, "%s: no address", host);
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family,
		    ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1)
			continue;
		soerr = 0;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1) {
			soerr = errno;
			len = sizeof(soerr);
			if (soerr == EINPROGRESS)
				soerr = !cluster_wait(fd, POLLOUT, deadline)
					    ? ETIMEDOUT
					: getsockopt(fd, SOL_SOCKET, SO_ERROR,
					      &soerr, &len) == -1
					    ? errno
					    : soerr;
		}
		if (soerr == 0)
			break;
		(void)snprintf(why, whylen, "connect: %s", strerror(soerr));
		(void)close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/* cluster_tls_io - after an SSL call returned n: 1 when it is to be
 * tried again (it waited for the socket), 0 when it failed (t->err) */
static int
cluster_tls_io(struct cluster_tls *t, int n, const char *what)
{
	int e = SSL_get_error(t->ssl, n);
	unsigned long l;

	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		if (cluster_wait(t->fd,
			e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
			t->deadline))
			return 1;
		(void)snprintf(t->err, sizeof(t->err), "%s: timed out", what);
		return 0;
	}
	if (SSL_get_verify_result(t->ssl) != X509_V_OK)
		(void)snprintf(t->err, sizeof(t->err),
		    "%s: server certificate not verified: %s", what,
		    X509_verify_cert_error_string(
			SSL_get_verify_result(t->ssl)));
	else if ((l = ERR_peek_last_error()) != 0)
		(void)snprintf(t->err, sizeof(t->err), "%s: %s", what,
		    ERR_reason_error_string(l) != NULL
			? ERR_reason_error_string(l)
			: "TLS error");
	else if (e == SSL_ERROR_SYSCALL && errno != 0)
		(void)snprintf(
		    t->err, sizeof(t->err), "%s: %s", what, strerror(errno));
	else
		(void)snprintf(
		    t->err, sizeof(t->err), "%s: connection closed", what);
	ERR_clear_error();
	return 0;
}

/* cluster_tls_verify - what the handshake checks: the chain against
 * ca_file or the system store, the name (or address) host; 0, or -1 */
static int
cluster_tls_verify(struct cluster_tls *t, const char *host, const char *ca_file)
{
	unsigned char ip[16];
	int isip;

	SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
	if ((ca_file[0] != '\0'
		    ? SSL_CTX_load_verify_locations(t->ctx, ca_file, NULL)
		    : SSL_CTX_set_default_verify_paths(t->ctx)) != 1) {
		(void)snprintf(t->err, sizeof(t->err),
		    "cannot load the CA certificates%s%s",
		    ca_file[0] != '\0' ? " of " : "", ca_file);
		return -1;
	}
	if ((t->ssl = SSL_new(t->ctx)) == NULL ||
	    SSL_set_fd(t->ssl, t->fd) != 1)
		return -1;
	isip = inet_pton(AF_INET, host, ip) == 1 ||
	       inet_pton(AF_INET6, host, ip) == 1;
	if (isip)
		return X509_VERIFY_PARAM_set1_ip_asc(
			   SSL_get0_param(t->ssl), host) == 1
			   ? 0
			   : -1;
	if (SSL_set_tlsext_host_name(t->ssl, host) != 1 ||
	    SSL_set1_host(t->ssl, host) != 1)
		return -1;
	return 0;
}

/* cluster_tls_open - a verified TLS connection to addr, or NULL */
struct cluster_tls *
cluster_tls_open(const char *addr, const char *ca_file, int timeout_ms,
    char *why, size_t whylen)
{
	struct cluster_tls *t;
	char host[256], *colon;
	int n;

	if (strlcpy(host, addr, sizeof(host)) >= sizeof(host) ||
	    (colon = strrchr(host, ':')) == NULL) {
		(void)snprintf(why, whylen, "tls = yes needs host:port");
		return NULL;
	}
	*colon = '\0';
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		(void)snprintf(why, whylen, "no memory");
		return NULL;
	}
	t->timeout_ms = timeout_ms;
	(void)strlcpy(t->err, "no memory", sizeof(t->err));
	if ((t->fd = cluster_tls_dial(host, colon + 1,
		 clock_now() + (double)timeout_ms / 1000, why, whylen)) == -1) {
		free(t);
		return NULL;
	}
	if ((t->ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION) != 1 ||
	    (t->reader = redisReaderCreate()) == NULL ||
	    cluster_tls_verify(t, host, ca_file) == -1)
		goto fail;
	t->deadline = clock_now() + (double)timeout_ms / 1000;
	while ((n = SSL_connect(t->ssl)) != 1)
		if (!cluster_tls_io(t, n, "TLS handshake"))
			goto fail;
	if (SSL_get_verify_result(t->ssl) != X509_V_OK) {
		(void)snprintf(
		    t->err, sizeof(t->err), "server certificate not verified");
		goto fail;
	}
	return t;
fail:
	(void)strlcpy(why, t->err, whylen);
	ERR_clear_error();
	cluster_tls_close(t);
	return NULL;
}

/* cluster_tls_command - send argv, read its reply, or NULL */
redisReply *
cluster_tls_command(struct cluster_tls *t, int argc, const char **argv)
{
	char *cmd, buf[16384];
	void *reply = NULL;
	int len, off = 0, n;

	if ((len = redisFormatCommandArgv(&cmd, argc, argv, NULL)) < 0) {
		(void)strlcpy(t->err, "no memory", sizeof(t->err));
		return NULL;
	}
	t->deadline = clock_now() + (double)t->timeout_ms / 1000;
	while (off < len)
		if ((n = SSL_write(t->ssl, cmd + off, len - off)) > 0)
			off += n;
		else if (!cluster_tls_io(t, n, "write"))
			break;
	redisFreeCommand(cmd);
	if (off < len)
		return NULL;
	for (;;) {
		if (redisReaderGetReply(t->reader, &reply) != REDIS_OK) {
			(void)snprintf(t->err, sizeof(t->err),
			    "protocol error: %s", t->reader->errstr);
			return NULL;
		}
		if (reply != NULL)
			return reply;
		if ((n = SSL_read(t->ssl, buf, sizeof(buf))) > 0) {
			if (redisReaderFeed(t->reader, buf, (size_t)n) !=
			    REDIS_OK) {
				(void)strlcpy(
				    t->err, "no memory", sizeof(t->err));
				return NULL;
			}
		} else if (!cluster_tls_io(t, n, "read"))
			return NULL;
	}
}

/* cluster_tls_error - why the last command failed */
const char *
cluster_tls_error(const struct cluster_tls *t)
{
	return t->err;
}

/* cluster_tls_close - close and free */
void
cluster_tls_close(struct cluster_tls *t)
{
	if (t == NULL)
		return;
	if (t->ssl != NULL)
		SSL_free(t->ssl);
	if (t->ctx != NULL)
		SSL_CTX_free(t->ctx);
	if (t->reader != NULL)
		redisReaderFree(t->reader);
	if (t->fd != -1)
		(void)close(t->fd);
	free(t);
}
