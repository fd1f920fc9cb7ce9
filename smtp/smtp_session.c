/*
 * smtp_session.c - one SMTP client connection: connect, greeting,
 * EHLO/HELO, the write and reply primitives, QUIT.
 *
 * Everything runs on a non-blocking socket with poll() and a deadline per
 * stage, so a silent or slow server costs at most the configured timeout.
 * The primitives mark the session broken on any failure (timeout, lost
 * connection, unparsable reply, 421): after that no byte may be sent,
 * because we no longer know which command the server is answering.
 * Once STARTTLS has secured the channel, reads and writes go through the
 * record layer smtp_tls.c set in s->io; this file calls nothing above it.
 *
 * Failures before the session is ready (connect, greeting, EHLO/HELO)
 * carry negative feedback: they say the destination is unwell, not that
 * this message is bad.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "smtp_session.h"

#define SMTP_QUIT_MAX_MS 10000 /* QUIT is a courtesy: never wait long */

/* smtp_session_timeouts - Postfix's default timeouts */
void
smtp_session_timeouts(struct smtp_timeouts *to)
{
	to->connect_ms = 30 * 1000;
	to->greeting_ms = 300 * 1000;
	to->helo_ms = 300 * 1000;
	to->command_ms = 300 * 1000;
	to->data_ms = 180 * 1000;
	to->eod_ms = 600 * 1000;
}

/* smtp_session_io - record why a primitive failed; the session is over */
static int
smtp_session_io(struct smtp_session *s, enum smtp_io_error why, int err)
{
	s->io_error = why;
	s->io_errno = err;
	s->broken = 1;
	return -1;
}

/* smtp_session_wait - poll for events until the deadline */
int
smtp_session_wait(struct smtp_session *s, short events, long long deadline)
{
	struct pollfd pfd = {.fd = s->fd, .events = events};
	long long left;
	int n;

	for (;;) {
		if ((left = deadline - clock_ms()) <= 0)
			return smtp_session_io(s, SMTP_IO_TIMEOUT, ETIMEDOUT);
		if ((n = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left)) >
		    0)
			return 0;
		if (n == -1 && errno != EINTR)
			return smtp_session_io(s, SMTP_IO_LOST, errno);
	}
}

/* smtp_session_send - write all of buf within timeout_ms */
int
smtp_session_send(
    struct smtp_session *s, const char *buf, size_t len, int timeout_ms)
{
	long long deadline = clock_ms() + timeout_ms;
	short want = POLLOUT;
	ssize_t n;

	if (s->broken)
		return -1;
	while (len > 0) {
		if (s->io != NULL)
			n = s->io->write(s, buf, len, &want);
		else if ((n = send(s->fd, buf, len,
			      MSG_NOSIGNAL | MSG_DONTWAIT)) == -1 &&
			 (errno == EAGAIN || errno == EINTR))
			n = errno == EAGAIN ? 0 : -2;
		if (n > 0) {
			buf += n;
			len -= n;
		} else if (n == -1)
			return smtp_session_io(s, SMTP_IO_LOST, errno);
		else if (n == 0 && smtp_session_wait(s, want, deadline) == -1)
			return -1;
	}
	return 0;
}

/* smtp_session_reply - read the next complete reply within timeout_ms */
int
smtp_session_reply(
    struct smtp_session *s, int timeout_ms, struct smtp_reply *out)
{
	long long deadline = clock_ms() + timeout_ms;
	enum smtp_reply_status rs;
	short want = POLLIN;
	size_t used;
	ssize_t n;

	if (s->broken)
		return -1;
	for (;;) {
		if (s->inoff < s->inlen) {
			rs = smtp_reply_feed(&s->parser, s->in + s->inoff,
			    s->inlen - s->inoff, &used);
			s->inoff += used;
			if (rs == SMTP_REPLY_DONE) {
				*out = s->parser.reply;
				/* 421: the server is closing the channel. */
				if (out->code == 421)
					s->broken = 1;
				return 0;
			}
			if (rs == SMTP_REPLY_ERROR) {
				s->proto_error = s->parser.error;
				return smtp_session_io(s, SMTP_IO_PROTO, 0);
			}
		}
		s->inoff = s->inlen = 0;
		/* recv's 0 (end of stream) is the record layer's -1 with
		 * errno 0; 0 from it means wait for the events in want. */
		if (s->io != NULL)
			n = s->io->read(s, s->in, sizeof(s->in), &want);
		else if ((n = recv(
			      s->fd, s->in, sizeof(s->in), MSG_DONTWAIT)) == 0)
			n = -1, errno = 0;
		else if (n == -1 && (errno == EAGAIN || errno == EINTR))
			n = errno == EAGAIN ? 0 : -2;
		if (n > 0)
			s->inlen = n;
		else if (n == -1)
			return smtp_session_io(s, SMTP_IO_LOST, errno);
		else if (n == 0 && smtp_session_wait(s, want, deadline) == -1)
			return -1;
	}
}

/* smtp_session_failed - describe the failure of the last primitive */
void
smtp_session_failed(
    struct smtp_session *s, const char *stage, struct smtp_status *st)
{
	st->outcome = SMTP_DEFERRED;
	st->feedback = SMTP_FEEDBACK_POSITIVE;
	st->code = 0;
	st->stage = stage;
	(void)strlcpy(st->dsn, "4.4.2", sizeof(st->dsn));
	switch (s->io_error) {
	case SMTP_IO_TIMEOUT:
		snprintf(st->text, sizeof(st->text),
		    "conversation with %s timed out while %s", s->peer, stage);
		break;
	case SMTP_IO_PROTO:
		(void)strlcpy(st->dsn, "4.5.0", sizeof(st->dsn));
		snprintf(st->text, sizeof(st->text),
		    "protocol error from %s while %s: %s", s->peer, stage,
		    s->proto_error);
		break;
	case SMTP_IO_LOST:
	case SMTP_IO_OK:
		snprintf(st->text, sizeof(st->text),
		    "lost connection with %s while %s%s%s", s->peer, stage,
		    s->io_errno ? ": " : "",
		    s->io_errno ? strerror(s->io_errno) : "");
		break;
	}
}

/* smtp_session_replied - turn the server's reply into a status */
void
smtp_session_replied(
    const struct smtp_reply *r, const char *stage, struct smtp_status *st)
{
	st->outcome = r->code / 100 == 2   ? SMTP_SENT
		      : r->code / 100 == 5 ? SMTP_BOUNCED
					   : SMTP_DEFERRED;
	st->feedback = SMTP_FEEDBACK_POSITIVE;
	st->code = r->code;
	st->stage = stage;
	(void)strlcpy(st->dsn, r->dsn, sizeof(st->dsn));
	/* A 3xx where none belongs is a protocol error: retry later. */
	if (r->code / 100 == 3)
		(void)strlcpy(st->dsn, "4.5.0", sizeof(st->dsn));
	smtp_reply_format(r, st->text, sizeof(st->text));
}

/* smtp_session_bind - bind the socket to the origin's address, if it
 * names one; -1 with st saying why (the session then fails: another
 * address is never put in its place) */
static int
smtp_session_bind(
    struct smtp_session *s, const struct smtp_origin *o, struct smtp_status *st)
{
	char addr[INET6_ADDRSTRLEN];

	if (o->bind == NULL || bind(s->fd, o->bind, o->bindlen) == 0)
		return 0;
	if (getnameinfo(o->bind, o->bindlen, addr, sizeof(addr), NULL, 0,
		NI_NUMERICHOST) != 0)
		(void)strlcpy(addr, "?", sizeof(addr));
	snprintf(st->text, sizeof(st->text),
	    "cannot bind to source address %s: %s", addr, strerror(errno));
	(void)strlcpy(st->dsn, "4.4.1", sizeof(st->dsn));
	return -1;
}

/* smtp_session_connect - non-blocking connect with a deadline, from the
 * origin's address */
static int
smtp_session_connect(struct smtp_session *s, const struct sockaddr *sa,
    socklen_t salen, const struct smtp_origin *o, struct smtp_status *st)
{
	long long deadline = clock_ms() + s->to.connect_ms;
	socklen_t len = sizeof(int);
	int err = 0, one = 1;

	st->stage = "connect";
	if ((s->fd = socket(sa->sa_family,
		 SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		err = errno;
	else if (smtp_session_bind(s, o, st) == -1)
		return -1;
	else if (connect(s->fd, sa, salen) == -1) {
		if (errno != EINPROGRESS)
			err = errno;
		else if (smtp_session_wait(s, POLLOUT, deadline) == -1)
			err = s->io_errno;
		else if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) ==
			 -1)
			err = errno;
	}
	if (err != 0) {
		snprintf(st->text, sizeof(st->text), "connect to %s: %s",
		    s->peer, strerror(err));
		(void)strlcpy(st->dsn, "4.4.1", sizeof(st->dsn));
		return -1;
	}
	/* Without this, Nagle holds the final dot for the server's ACK. */
	(void)setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* smtp_session_ehlo_features - the extensions of an EHLO reply */
static void
smtp_session_ehlo_features(struct smtp_session *s, const struct smtp_reply *r)
{
	const char *line, *next;
	size_t len;

	s->features = SMTP_FEAT_ESMTP;
	s->size_limit = 0;
	/* The first line is the server's name; each next is a keyword. */
	for (line = strchr(r->text, '\n'); line != NULL; line = next) {
		line++;
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		if (len == 10 && strncasecmp(line, "PIPELINING", 10) == 0)
			s->features |= SMTP_FEAT_PIPELINING;
		else if (len == 8 && strncasecmp(line, "STARTTLS", 8) == 0)
			s->features |= SMTP_FEAT_STARTTLS;
		else if (len == 8 && strncasecmp(line, "8BITMIME", 8) == 0)
			s->features |= SMTP_FEAT_8BITMIME;
		else if (len >= 4 && strncasecmp(line, "SIZE", 4) == 0 &&
			 (len == 4 || line[4] == ' ')) {
			s->features |= SMTP_FEAT_SIZE;
			s->size_limit =
			    len > 5 ? strtoll(line + 5, NULL, 10) : 0;
			if (s->size_limit < 0)
				s->size_limit = 0;
		}
	}
}

/* smtp_session_hello - EHLO, or HELO when the server refuses EHLO; again
 * after STARTTLS, which forgets what the server said before */
int
smtp_session_hello(
    struct smtp_session *s, const char *helo_name, struct smtp_status *st)
{
	struct smtp_reply r;
	char cmd[300];
	int len;

	if ((len = snprintf(cmd, sizeof(cmd), "EHLO %s\r\n", helo_name)) < 0 ||
	    (size_t)len >= sizeof(cmd))
		len = snprintf(cmd, sizeof(cmd), "EHLO localhost\r\n");
	if (smtp_session_send(s, cmd, len, s->to.helo_ms) == -1 ||
	    smtp_session_reply(s, s->to.helo_ms, &r) == -1) {
		smtp_session_failed(s, "performing the EHLO handshake", st);
		return -1;
	}
	if (r.code / 100 == 2) {
		smtp_session_ehlo_features(s, &r);
		return 0;
	}
	/* Only a permanent refusal means "no ESMTP here"; 421 and other
	 * 4xx mean the server is unwell. */
	if (r.code / 100 == 5) {
		memcpy(cmd, "HELO", 4);
		if (smtp_session_send(s, cmd, len, s->to.helo_ms) == -1 ||
		    smtp_session_reply(s, s->to.helo_ms, &r) == -1) {
			smtp_session_failed(
			    s, "performing the HELO handshake", st);
			return -1;
		}
		if (r.code / 100 == 2)
			return 0;
	}
	smtp_session_replied(&r, cmd[0] == 'H' ? "HELO" : "EHLO", st);
	return -1;
}

/* smtp_session_open - connect from o's address, read the greeting, say
 * EHLO or HELO with o's name */
int
smtp_session_open(struct smtp_session *s, const char *host,
    const struct sockaddr *sa, socklen_t salen, const struct smtp_origin *o,
    const struct smtp_timeouts *to, struct smtp_status *st)
{
	char addr[INET6_ADDRSTRLEN + 16], port[16];
	struct smtp_reply r;

	memset(s, 0, sizeof(*s));
	memset(st, 0, sizeof(*st));
	s->fd = -1;
	s->to = *to;
	smtp_reply_init(&s->parser);
	if (getnameinfo(sa, salen, addr, sizeof(addr), port, sizeof(port),
		NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		(void)strlcpy(addr, "?", sizeof(addr));
		(void)strlcpy(port, "?", sizeof(port));
	}
	snprintf(s->peer, sizeof(s->peer), "%s[%s]:%s", host, addr, port);

	if (smtp_session_connect(s, sa, salen, o, st) == -1)
		goto fail;
	if (smtp_session_reply(s, s->to.greeting_ms, &r) == -1) {
		smtp_session_failed(
		    s, "receiving the initial server greeting", st);
		goto fail;
	}
	if (r.code / 100 != 2) {
		smtp_session_replied(&r, "greeting", st);
		goto fail;
	}
	if (smtp_session_hello(s, o->helo, st) == -1)
		goto fail;
	return 0;

fail:
	/* Whatever the reply said, the message itself was not judged. */
	st->outcome = SMTP_DEFERRED;
	st->feedback = SMTP_FEEDBACK_NEGATIVE;
	if (st->dsn[0] == '5')
		st->dsn[0] = '4';
	if (s->io != NULL)
		s->io->end(s);
	if (s->fd != -1)
		close(s->fd);
	s->fd = -1;
	s->broken = 1;
	return -1;
}

/* smtp_session_quit - QUIT when the session is still sane, then close;
 * not after an envelope sent ahead, whose replies would answer the
 * QUIT.  0 when the server answered the QUIT (it has ended the session
 * by then), else -1 */
int
smtp_session_quit(struct smtp_session *s)
{
	struct smtp_reply r;
	int ms = s->to.command_ms, answered = -1;

	if (s->fd == -1)
		return -1;
	if (ms > SMTP_QUIT_MAX_MS)
		ms = SMTP_QUIT_MAX_MS;
	if (!s->broken && !s->ahead &&
	    smtp_session_send(s, "QUIT\r\n", 6, ms) == 0 &&
	    smtp_session_reply(s, ms, &r) == 0)
		answered = 0;
	if (s->io != NULL)
		s->io->end(s);
	close(s->fd);
	s->fd = -1;
	s->broken = 1;
	return answered;
}

/* smtp_session_close - QUIT (smtp_session_quit) and close, whatever the
 * server answers */
void
smtp_session_close(struct smtp_session *s)
{
	(void)smtp_session_quit(s);
}
