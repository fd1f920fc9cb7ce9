/*
 * testsmtpd_session.c - mj_testsmtpd's sessions: the table of open
 * connections, accepting, moving bytes between each socket and its
 * buffers, closing and freeing.
 *
 * Every socket is non-blocking and served from the one poll loop;
 * session_poll says what a session waits for, session_io does it.
 * Replies are queued with out_append and written as the socket takes
 * them (one byte per write with --split).  The --max-sessions and
 * --fail-first-sessions refusals are made at accept, and so is the
 * --client-max-sessions one (testsmtpd_client.c), which counts the
 * sessions of each client address.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <err.h>
#include <netdb.h>
#include <stdio.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testsmtpd.h"

struct session **sessions;
size_t nsessions;
static unsigned long next_session_id = 1;
static unsigned long open_now, open_max, refused; /* for --stats */

/* stats_write - the --stats file, from the counts so far */
static void
stats_write(void)
{
	record_stats(next_session_id - 1, open_now, open_max, refused);
}

/* out_append - queue bytes for the client */
void
out_append(struct session *s, const char *buf, size_t len)
{
	size_t need = s->outlen + len;

	if (need > s->outcap) {
		s->outcap = need < 4096 ? 4096 : need * 2;
		if ((s->out = realloc(s->out, s->outcap)) == NULL)
			err(1, "realloc");
	}
	memcpy(s->out + s->outlen, buf, len);
	s->outlen += len;
}

/* session_close - drop the connection and free the transaction */
void
session_close(struct session *s)
{
	if (s->mode == M_CLOSED)
		return;
	xact_reset(s);
	tls_end(s);
	close(s->fd);
	s->mode = M_CLOSED;
	open_now--;
	stats_write();
	if (s->client_open)
		client_close(s->client);
}

/* session_poll - the poll events a session waits for; lowers *next
 * (ms from now, -1: none) to when its delayed reply is due */
short
session_poll(const struct session *s, long long now, long long *next)
{
	short events = 0;

	if (s->pending != NULL && (*next == -1 || s->wake - now < *next))
		*next = s->wake > now ? s->wake - now : 0;
	if (!s->eof && s->inlen < sizeof(s->in))
		events |= POLLIN;
	if (s->outlen > s->outoff || s->ssl_want_out)
		events |= POLLOUT;
	if (tls_pending(s) && s->inlen < sizeof(s->in))
		*next = 0;
	return events;
}

/* session_read - read(2), or SSL_read once TLS is on */
static ssize_t
session_read(struct session *s, char *buf, size_t len)
{
	if (s->ssl == NULL)
		return read(s->fd, buf, len);
	return tls_read(s, buf, len);
}

/* session_write - send(2), or SSL_write once TLS is on */
static ssize_t
session_write(struct session *s, const char *buf, size_t len)
{
	if (s->ssl == NULL)
		return send(s->fd, buf, len, MSG_NOSIGNAL);
	return tls_write(s, buf, len);
}

/* session_io - move bytes between the socket and the buffers */
void
session_io(struct session *s, short revents)
{
	ssize_t n;
	size_t len;

	/* Bytes OpenSSL holds decrypted count as readable. */
	if (tls_pending(s))
		revents |= POLLIN;
	if (s->ssl != NULL && s->ssl_want_out && (revents & POLLOUT))
		revents |= POLLIN;
	if (s->mode != M_CLOSED && s->inlen < sizeof(s->in) &&
	    (revents & (POLLIN | POLLHUP | POLLERR))) {
		n = session_read(s, s->in + s->inlen, sizeof(s->in) - s->inlen);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			s->eof = 1;
		else if (n > 0) {
			s->inlen += n;
			s->reads++;
		}
	}
	if (s->mode != M_CLOSED && (revents & POLLOUT)) {
		len = cf.split ? 1 : s->outlen - s->outoff;
		n = session_write(s, s->out + s->outoff, len);
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			session_close(s);
		else if (n > 0 && (s->outoff += n) == s->outlen)
			s->outoff = s->outlen = 0;
	}
	if (s->mode != M_CLOSED && s->tls_next && s->outlen == 0)
		tls_begin(s);
	if (s->mode != M_CLOSED && s->close_after && s->outlen == 0)
		session_close(s);
}

/* session_accept - take every pending connection and greet it */
void
session_accept(int lfd)
{
	struct sockaddr_storage peer;
	socklen_t peerlen = sizeof(peer);
	struct session *s;
	int fd, one = 1, over;

	while ((fd = accept4(lfd, (struct sockaddr *)&peer, &peerlen,
		    SOCK_NONBLOCK)) != -1) {
		if (setsockopt(
			fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
			err(1, "TCP_NODELAY");
		if ((s = calloc(1, sizeof(*s))) == NULL ||
		    (sessions = reallocarray(
			 sessions, nsessions + 1, sizeof(*sessions))) == NULL)
			err(1, "calloc");
		s->fd = fd;
		s->id = next_session_id++;
		if (getnameinfo((struct sockaddr *)&peer, peerlen, s->client,
			sizeof(s->client), NULL, 0, NI_NUMERICHOST) != 0)
			snprintf(s->client, sizeof(s->client), "?");
		peerlen = sizeof(peer);
		sessions[nsessions++] = s;
		if (++open_now > open_max)
			open_max = open_now;
		over =
		    cf.max_sessions > 0 && nsessions > (size_t)cf.max_sessions;
		refused += over;
		stats_write();
		/* The cap per client address, after the server's own. */
		if (!over && client_open(s->client)) {
			over = 1;
			refused++;
			stats_write();
		} else if (!over)
			s->client_open = 1;
		if (over || s->id <= (unsigned long)cf.fail_first) {
			out_append(
			    s, "421 4.3.2 service not available\r\n", 34);
			s->close_after = 1;
		} else
			session_greet(s);
	}
	if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED &&
	    errno != EMFILE && errno != ENFILE)
		err(1, "accept");
}

/* sessions_reap - free closed sessions */
void
sessions_reap(void)
{
	size_t i = 0;

	while (i < nsessions) {
		if (sessions[i]->mode != M_CLOSED) {
			i++;
			continue;
		}
		free(sessions[i]->out);
		free(sessions[i]->pending);
		free(sessions[i]);
		sessions[i] = sessions[--nsessions];
	}
}
