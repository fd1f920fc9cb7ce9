/*
 * queueserv_listen.c - queueserv.sock: bind it, take clients, read one
 * request line each, write the reply.
 *
 * Nothing here blocks: the listening socket and every client are
 * non-blocking, a client has client_timeout_ms from accept to be done,
 * and at most max_clients are open (the kernel's backlog holds the rest).
 * A poke is answered "ok" and only raises want_run, so pokes cost a
 * fixed amount of memory however many arrive.  A request line goes
 * back to the loop, which has queueserv_control.c act on it.
 */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "queueserv.h"
#include "spool_path.h"

/* listen_addr - the socket's address */
static int
listen_addr(const struct qs *qs, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlcpy(sun->sun_path, qs->sock_path, sizeof(sun->sun_path)) >=
	    sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* listen_answers - does a server answer on the socket path? */
static int
listen_answers(const struct sockaddr_un *sun)
{
	int fd, r;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return 0;
	r = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) == 0;
	close(fd);
	return r;
}

/* queueserv_listen_perms - socket_mode and socket_group on the socket */
int
queueserv_listen_perms(struct qs *qs)
{
	const char *name = qs->s.queueserv_socket_group;
	struct group *gr;

	if (chmod(qs->sock_path, (mode_t)qs->s.queueserv_socket_mode) == -1) {
		log_warn("chmod %s", qs->sock_path);
		return -1;
	}
	if (name[0] == '\0')
		return 0;
	if ((gr = getgrnam(name)) == NULL) {
		log_warnx("socket_group %s: no such group", name);
		return -1;
	}
	if (chown(qs->sock_path, (uid_t)-1, gr->gr_gid) == -1) {
		log_warn("chown %s to group %s", qs->sock_path, name);
		return -1;
	}
	return 0;
}

/* queueserv_listen_open - bind queueserv.sock; a socket left by a dead
 * server is removed once we know nobody answers on it.  The caller holds
 * the pidfile, so no other server is starting meanwhile. */
int
queueserv_listen_open(struct qs *qs, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd;

	if (spool_path(qs->sock_path, sizeof(qs->sock_path), qs->s.spool_dir,
		SPOOL_SOCKET) == -1 ||
	    listen_addr(qs, &sun) == -1) {
		snprintf(err, errlen, "socket path: %s", strerror(errno));
		return -1;
	}
	if (lstat(qs->sock_path, &st) == 0) {
		if (listen_answers(&sun)) {
			snprintf(err, errlen,
			    "another server answers on %s; not starting",
			    qs->sock_path);
			return -1;
		}
		if (unlink(qs->sock_path) == -1) {
			snprintf(err, errlen, "cannot remove stale %s: %s",
			    qs->sock_path, strerror(errno));
			return -1;
		}
		log_notice("removed stale socket %s", qs->sock_path);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(fd, SOMAXCONN) == -1) {
		snprintf(err, errlen, "cannot listen on %s: %s", qs->sock_path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	qs->listen_fd = fd;
	if (queueserv_listen_perms(qs) == -1) {
		snprintf(err, errlen, "cannot set the mode or group of %s",
		    qs->sock_path);
		return -1;
	}
	return 0;
}

/* queueserv_listen_close - stop accepting; remove the name if asked */
void
queueserv_listen_close(struct qs *qs, int unlink_path)
{
	if (qs->listen_fd == -1)
		return;
	close(qs->listen_fd);
	qs->listen_fd = -1;
	if (unlink_path && unlink(qs->sock_path) == -1 && errno != ENOENT)
		log_warn("unlink %s", qs->sock_path);
}

/* queueserv_listen_accept - take the waiting clients, up to the limit;
 * returns how many were taken */
int
queueserv_listen_accept(struct qs *qs)
{
	struct client *c;
	int fd, n = 0;

	while (qs->listen_fd != -1 && qs->nclients < qs->maxclients) {
		if ((fd = accept4(qs->listen_fd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_warn("accept");
			break;
		}
		c = &qs->clients[qs->nclients++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->deadline = clock_ms() + qs->s.queueserv_client_timeout_ms;
		n++;
	}
	return n;
}

/* queueserv_listen_drop - close a client and forget it */
void
queueserv_listen_drop(struct qs *qs, struct client *c)
{
	size_t i = (size_t)(c - qs->clients);

	if (c->fd != -1)
		close(c->fd);
	qs->clients[i] = qs->clients[--qs->nclients];
}

/* queueserv_listen_reply - queue a reply; the client closes once it is
 * written */
void
queueserv_listen_reply(struct client *c, const char *text)
{
	c->outlen = strlcpy(c->out, text, sizeof(c->out));
	if (c->outlen >= sizeof(c->out))
		c->outlen = sizeof(c->out) - 1;
	c->outoff = 0;
	c->closing = 1;
}

/* listen_write - write what is left of the reply */
static int
listen_write(struct client *c)
{
	ssize_t n;

	while (c->outoff < c->outlen) {
		n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff,
		    MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		c->outoff += (size_t)n;
	}
	return 1;
}

/* queueserv_listen_read - read the client's request: QS_LISTEN_LINE
 * when a whole line is in c->in (its end cut off) for the loop to act
 * on, QS_LISTEN_WAIT for more or for the reply to go, QS_LISTEN_GONE
 * when the client was dropped */
int
queueserv_listen_read(struct qs *qs, struct client *c, short revents)
{
	ssize_t n;
	char *nl;

	if (c->closing || !(revents & (POLLIN | POLLHUP | POLLERR)))
		return QS_LISTEN_WAIT;
	n = read(c->fd, c->in + c->inlen, sizeof(c->in) - 1 - c->inlen);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return QS_LISTEN_WAIT;
	if (n <= 0) {
		queueserv_listen_drop(qs, c);
		return QS_LISTEN_GONE;
	}
	c->inlen += (size_t)n;
	c->in[c->inlen] = '\0';
	if ((nl = strchr(c->in, '\n')) == NULL) {
		if (c->inlen == sizeof(c->in) - 1)
			queueserv_listen_reply(c, "error: line too long\n\n");
		return QS_LISTEN_WAIT;
	}
	*nl = '\0';
	if (nl > c->in && nl[-1] == '\r')
		nl[-1] = '\0';
	return QS_LISTEN_LINE;
}

/* queueserv_listen_write - write what is left of the reply; drop the
 * client once it is written, or when a held "stop" client hangs up */
void
queueserv_listen_write(struct qs *qs, struct client *c, short revents)
{
	int r;

	if (!c->closing)
		return;
	if ((revents & (POLLHUP | POLLERR)) && c->deadline == -1) {
		queueserv_listen_drop(qs, c);
		return;
	}
	if ((r = listen_write(c)) == -1 || (r == 1 && c->deadline != -1))
		queueserv_listen_drop(qs, c);
}

/* queueserv_listen_timeouts - drop the clients that took too long */
void
queueserv_listen_timeouts(struct qs *qs, long long now)
{
	size_t i = 0;

	while (i < qs->nclients) {
		if (qs->clients[i].deadline != -1 &&
		    qs->clients[i].deadline <= now) {
			log_debug("client timed out");
			queueserv_listen_drop(qs, &qs->clients[i]);
			continue; /* the last one moved into i */
		}
		i++;
	}
}

/* queueserv_listen_deadline - the earliest client deadline, or -1 */
long long
queueserv_listen_deadline(const struct qs *qs)
{
	long long d = -1;
	size_t i;

	for (i = 0; i < qs->nclients; i++)
		if (qs->clients[i].deadline != -1 &&
		    (d == -1 || qs->clients[i].deadline < d))
			d = qs->clients[i].deadline;
	return d;
}
