/*
 * smtp_session.h - one SMTP client connection: connect, greeting,
 * EHLO/HELO, reply and write primitives with deadlines, QUIT.
 *
 * A session carries any number of transactions (smtp_xact.h) until the
 * caller closes it.  Every wait is bounded by a per-stage timeout; the
 * socket is non-blocking and written with MSG_NOSIGNAL, so the client
 * never blocks forever and never takes a signal.
 */
#ifndef MJQ_SMTP_SESSION_H
#define MJQ_SMTP_SESSION_H

#include <sys/socket.h>

#include "smtp_reply.h"

enum smtp_outcome { SMTP_SENT, SMTP_DEFERRED, SMTP_BOUNCED };

/* Connection and handshake failures are the scheduler's negative
 * feedback; any other result is positive. */
enum smtp_feedback { SMTP_FEEDBACK_POSITIVE, SMTP_FEEDBACK_NEGATIVE };

/* The result of a session, a transaction or one recipient. */
struct smtp_status {
	enum smtp_outcome outcome;
	enum smtp_feedback feedback;
	int code;	   /* the server's reply code; 0 for a local reason */
	char dsn[16];	   /* enhanced status code X.Y.Z */
	const char *stage; /* what failed or was answered: "RCPT TO", ... */
	char text[512];	   /* the reply on one line, or the local reason */
};

/* Milliseconds per stage; Postfix's defaults from smtp_timeouts_init. */
struct smtp_timeouts {
	int connect_ms, greeting_ms, helo_ms, command_ms, data_ms, eod_ms;
};

#define SMTP_FEAT_ESMTP 0x1
#define SMTP_FEAT_PIPELINING 0x2
#define SMTP_FEAT_SIZE 0x4
#define SMTP_FEAT_8BITMIME 0x8
#define SMTP_FEAT_STARTTLS 0x10

enum smtp_io_error { SMTP_IO_OK, SMTP_IO_TIMEOUT, SMTP_IO_LOST, SMTP_IO_PROTO };

/* What a session's channel is, as Postfix logs it (smtp_tls_verify.c). */
enum smtp_tls_state {
	SMTP_TLS_OFF,	    /* clear text */
	SMTP_TLS_ANONYMOUS, /* TLS, the server showed no certificate */
	SMTP_TLS_UNTRUSTED, /* TLS, the chain is not trusted */
	SMTP_TLS_TRUSTED,   /* TLS, trusted chain, name not matched */
	SMTP_TLS_VERIFIED   /* TLS, trusted chain (or DANE) and name */
};

struct smtp_tls_conn; /* smtp_tls_conn.h's, while TLS is on */
struct smtp_session;

/* The record layer under the send and reply primitives while the channel
 * is not clear text, installed by whoever secures it (smtp_tls.c, at
 * STARTTLS), so the session calls down through it and never into the
 * file above.  read and write: n bytes, 0 wait for the events in *want,
 * -1 lost (errno; 0 for the end of the stream), -2 try again.  end:
 * close the channel down (one try, never a wait) and uninstall it. */
struct smtp_session_io {
	long (*read)(struct smtp_session *, char *, size_t, short *);
	long (*write)(struct smtp_session *, const char *, size_t, short *);
	void (*end)(struct smtp_session *);
};

struct smtp_session {
	int fd;
	char peer[300];	      /* "host[addr]:port", for messages */
	int features;	      /* SMTP_FEAT_* from the EHLO reply */
	long long size_limit; /* the server's SIZE; 0 when none */
	struct smtp_timeouts to;
	int broken;	/* no further command can be sent */
	unsigned xacts; /* transactions begun on this session */
	int ahead;	/* the next transaction's envelope went out with the
			   last final dot; its replies are unread (smtp_xact.c) */
	enum smtp_io_error io_error; /* why the last primitive failed */
	int io_errno;
	const char *proto_error;
	const struct smtp_session_io *io; /* NULL: clear text */
	struct smtp_tls_conn *tls;	  /* NULL: clear text */
	enum smtp_tls_state tls_state;
	int tls_resumed; /* the TLS session was resumed */
	char in[4096];
	size_t inoff, inlen;
	struct smtp_reply_parser parser;
};

/* Where a session comes from: the name said in EHLO/HELO and the local
 * address to bind before connecting (NULL: the kernel's choice).  An
 * address that cannot be bound fails the session: it is never replaced
 * by another. */
struct smtp_origin {
	const char *helo;
	const struct sockaddr *bind;
	socklen_t bindlen;
};

void smtp_session_timeouts(struct smtp_timeouts *);
int smtp_session_open(struct smtp_session *, const char *,
    const struct sockaddr *, socklen_t, const struct smtp_origin *,
    const struct smtp_timeouts *, struct smtp_status *);
void smtp_session_close(struct smtp_session *);
int smtp_session_quit(struct smtp_session *);
int smtp_session_hello(
    struct smtp_session *, const char *, struct smtp_status *);
int smtp_session_wait(struct smtp_session *, short, long long);
int smtp_session_send(struct smtp_session *, const char *, size_t, int);
int smtp_session_reply(struct smtp_session *, int, struct smtp_reply *);
void smtp_session_failed(
    struct smtp_session *, const char *, struct smtp_status *);
void smtp_session_replied(
    const struct smtp_reply *, const char *, struct smtp_status *);

#endif
