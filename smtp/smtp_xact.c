/*
 * smtp_xact.c - one mail transaction over an open session.
 *
 * With PIPELINING the envelope goes out in one write (MAIL, every RCPT,
 * DATA; RFC 2920), and the replies are read back in order; without it,
 * each command waits for its reply.  The per-recipient outcome is the
 * RCPT reply when that failed, else the reply to DATA or to the final
 * dot.  A transaction on a reused session starts with RSET, which also
 * proves the cached connection is still alive before we commit to it;
 * with PIPELINING the RSET leads the envelope's write (RFC 2920 allows
 * it there) and its reply is read first, which saves a round trip per
 * transaction (one per recipient with VERP or one-click headers).
 *
 * Chaining: when the caller names the transaction that follows on this
 * session (one per recipient with VERP or one-click headers), its
 * envelope (MAIL, RCPT, DATA, no RSET: the final dot ends a transaction,
 * RFC 5321 4.1.1.4) goes out in the same write as this one's text and
 * final dot; RFC 2920 3.1 allows message content first in a group and
 * DATA last.  The end-of-data reply is read, and the session keeps
 * "ahead" set: the next call reads the envelope's replies without
 * sending anything.  So each copy costs one write and one wait instead
 * of two.  Only what would be sent anyway is sent ahead: the next
 * transaction must pass smtp_xact_check.  When the session breaks after
 * the dot (no end-of-data reply, a 421, the connection closed before
 * the MAIL reply), the next transaction had nothing accepted: its call
 * returns SMTP_XACT_STALE, as after a failed RSET, and the caller gives
 * it a new session.  A session with an envelope ahead is never QUIT
 * (smtp_session_close) nor cached (the caller).
 *
 * Nothing here is negative feedback: the handshake succeeded, so the
 * destination is up, whatever happens to this message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smtp_xact.h"

/* RFC 5321 allows paths of 256 octets; be lenient, but bounded so that
 * verb, path and parameters always fit one command buffer. */
#define SMTP_XACT_ADDR_MAX 900
#define SMTP_XACT_CMD_MAX 1024

/* Where each recipient stands during the transaction. */
enum { X_SKIP, X_PENDING, X_ACCEPTED, X_FINAL };

/* smtp_xact_all - give every recipient still open this status */
static void
smtp_xact_all(
    struct smtp_rcpt *r, size_t n, char *state, const struct smtp_status *st)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (state[i] == X_PENDING || state[i] == X_ACCEPTED) {
			r[i].st = *st;
			state[i] = X_FINAL;
		}
}

/* smtp_xact_local - a status decided here, not by the server */
static void
smtp_xact_local(struct smtp_status *st, enum smtp_outcome outcome,
    const char *dsn, const char *stage, const char *text)
{
	memset(st, 0, sizeof(*st));
	st->outcome = outcome;
	st->feedback = SMTP_FEEDBACK_POSITIVE;
	st->stage = stage;
	(void)strlcpy(st->dsn, dsn, sizeof(st->dsn));
	(void)strlcpy(st->text, text, sizeof(st->text));
}

/* smtp_xact_format - one command line; -1 if it cannot be sent safely */
static int
smtp_xact_format(char *buf, size_t size, const char *verb, const char *addr,
    const char *params)
{
	const char *p;
	int n;

	/* A CR, LF or angle bracket in an address would inject commands
	 * or break the path: such an address is refused, never sent. */
	for (p = addr; *p != '\0'; p++)
		if ((unsigned char)*p < ' ' || *p == '<' || *p == '>' ||
		    p - addr >= SMTP_XACT_ADDR_MAX)
			return -1;
	if ((n = snprintf(buf, size, "%s<%s>%s\r\n", verb, addr, params)) < 0 ||
	    (size_t)n >= size)
		return -1;
	return n;
}

/* smtp_xact_check - refuse what no server should see; 0 if nothing left */
static int
smtp_xact_check(struct smtp_session *s, const struct smtp_xact *x, char *state,
    struct smtp_status *st)
{
	char cmd[SMTP_XACT_CMD_MAX];
	struct smtp_rcpt *r = x->r;
	size_t i, n = x->n, npending = 0;

	smtp_xact_local(st, SMTP_BOUNCED, "5.1.3", "RCPT TO",
	    "bad recipient address syntax");
	for (i = 0; i < n; i++)
		if (smtp_xact_format(cmd, sizeof(cmd), "", r[i].addr, "") == -1)
			r[i].st = *st;
		else {
			state[i] = X_PENDING;
			npending++;
		}
	if (smtp_xact_format(cmd, sizeof(cmd), "", x->sender, "") == -1) {
		smtp_xact_local(st, SMTP_BOUNCED, "5.1.7", "MAIL FROM",
		    "bad sender address syntax");
		smtp_xact_all(r, n, state, st);
		return 0;
	}
	if ((s->features & SMTP_FEAT_SIZE) && s->size_limit > 0 &&
	    x->m->wire_size > s->size_limit) {
		smtp_xact_local(st, SMTP_BOUNCED, "5.3.4", "MAIL FROM", "");
		snprintf(st->text, sizeof(st->text),
		    "message size %lld exceeds size limit %lld of server %s",
		    (long long)x->m->wire_size, s->size_limit, s->peer);
		smtp_xact_all(r, n, state, st);
		return 0;
	}
	return npending > 0;
}

/* smtp_xact_params - SIZE= and BODY= for MAIL FROM, as offered */
static void
smtp_xact_params(struct smtp_session *s, const struct smtp_data_msg *m,
    char *buf, size_t size)
{
	buf[0] = '\0';
	if (s->features & SMTP_FEAT_SIZE)
		snprintf(buf, size, " SIZE=%lld", (long long)m->wire_size);
	/* Without 8BITMIME the text goes as it is, as Postfix does. */
	if (m->eightbit && (s->features & SMTP_FEAT_8BITMIME))
		strlcat(buf, " BODY=8BITMIME", size);
}

/* smtp_xact_envelope - RSET when rset, MAIL, every pending RCPT and
 * DATA, malloc'd in *out for one write; its length, or 0 */
static size_t
smtp_xact_envelope(struct smtp_session *s, int rset, const struct smtp_xact *x,
    const char *state, char **out)
{
	char params[64], *buf;
	size_t len = 0, i;
	int k;

	if ((*out = buf = reallocarray(NULL, x->n + 3, SMTP_XACT_CMD_MAX)) ==
	    NULL)
		return 0;
	smtp_xact_params(s, x->m, params, sizeof(params));
	if (rset) {
		memcpy(buf, "RSET\r\n", 6);
		len = 6;
	}
	len += smtp_xact_format(
	    buf + len, SMTP_XACT_CMD_MAX, "MAIL FROM:", x->sender, params);
	for (i = 0; i < x->n; i++)
		if (state[i] == X_PENDING &&
		    (k = smtp_xact_format(buf + len, SMTP_XACT_CMD_MAX,
			 "RCPT TO:", x->r[i].addr, "")) > 0)
			len += k;
	memcpy(buf + len, "DATA\r\n", 6);
	return len + 6;
}

/* smtp_xact_pipeline - the envelope (after RSET when rset) in one write */
static int
smtp_xact_pipeline(struct smtp_session *s, int rset, const struct smtp_xact *x,
    const char *state)
{
	char *buf;
	size_t len;
	int rc = -1;

	if ((len = smtp_xact_envelope(s, rset, x, state, &buf)) > 0)
		rc = smtp_session_send(s, buf, len, s->to.command_ms);
	free(buf);
	return rc;
}

/* smtp_xact_ahead - next's envelope for the write of the final dot, in
 * *out (malloc'd; NULL and 0 for none): only with PIPELINING and when
 * next has something to send */
static size_t
smtp_xact_ahead(
    struct smtp_session *s, const struct smtp_xact *next, char **out)
{
	struct smtp_status st;
	size_t len = 0;
	char *state;

	*out = NULL;
	if (next == NULL || !(s->features & SMTP_FEAT_PIPELINING) ||
	    (state = calloc(next->n + 1, 1)) == NULL)
		return 0;
	/* The same check the next call makes: the same recipients go. */
	if (smtp_xact_check(s, next, state, &st) > 0 &&
	    (len = smtp_xact_envelope(s, 0, next, state, out)) == 0) {
		free(*out);
		*out = NULL;
	}
	free(state);
	return len;
}

/* smtp_xact_step - send one command unless pipelined, read its reply */
static int
smtp_xact_step(struct smtp_session *s, const char *verb, const char *addr,
    const char *params, struct smtp_reply *reply)
{
	char cmd[SMTP_XACT_CMD_MAX];
	int len;

	if (!(s->features & SMTP_FEAT_PIPELINING)) {
		if (addr == NULL)
			len = snprintf(cmd, sizeof(cmd), "%s\r\n", verb);
		else
			len = smtp_xact_format(
			    cmd, sizeof(cmd), verb, addr, params);
		if (smtp_session_send(s, cmd, len, s->to.command_ms) == -1)
			return -1;
	}
	return smtp_session_reply(s, s->to.command_ms, reply);
}

/* smtp_xact_rset_reply - the reply to RSET: a reused session that
 * answers 2xx is alive and ready; else it is stale (-1) */
static int
smtp_xact_rset_reply(struct smtp_session *s)
{
	struct smtp_reply r;

	if (smtp_session_reply(s, s->to.command_ms, &r) == -1)
		return -1;
	if (r.code / 100 != 2) {
		s->broken = 1;
		return -1;
	}
	return 0;
}

/* smtp_xact_eod_reply - the reply to the final dot, the caller's work
 * (x->wait) done first, while it travels */
static int
smtp_xact_eod_reply(
    struct smtp_session *s, const struct smtp_xact *x, struct smtp_reply *r)
{
	if (x->wait != NULL)
		x->wait(x->wait_arg);
	return smtp_session_reply(s, s->to.eod_ms, r);
}

/* smtp_xact_body - the text and the final dot (and next's envelope in
 * the same write), then the end-of-data reply */
static void
smtp_xact_body(struct smtp_session *s, const struct smtp_xact *x, char *state,
    const struct smtp_xact *next, struct smtp_status *st)
{
	struct smtp_reply reply;
	size_t taillen;
	char *tail;
	int rc;

	/* From here the session is owed the replies of what went ahead. */
	if ((taillen = smtp_xact_ahead(s, next, &tail)) > 0)
		s->ahead = 1;
	if ((rc = smtp_data_send(s, x->m, tail, taillen)) == -2) {
		/* No final dot: the server must not take a cut message. */
		s->broken = 1;
		smtp_xact_local(st, SMTP_DEFERRED, "4.3.0", "message body",
		    "cannot read the message text");
	} else if (rc == -1)
		smtp_session_failed(s, "sending the message body", st);
	else if (smtp_xact_eod_reply(s, x, &reply) == -1)
		smtp_session_failed(s,
		    "sending end of data -- message may be sent more than once",
		    st);
	else
		smtp_session_replied(&reply, "end of data", st);
	free(tail);
	smtp_xact_all(x->r, x->n, state, st);
}

/* smtp_xact_rcpts - the RCPT replies; how many were accepted, or -1 */
static int
smtp_xact_rcpts(struct smtp_session *s, struct smtp_rcpt *r, size_t n,
    char *state, int mail_ok, struct smtp_status *st)
{
	struct smtp_reply reply;
	size_t i;
	int nok = 0;

	for (i = 0; i < n; i++) {
		/* After a failed MAIL, read the pipelined replies only. */
		if (state[i] == X_SKIP ||
		    (!mail_ok && !(s->features & SMTP_FEAT_PIPELINING)))
			continue;
		if (smtp_xact_step(s, "RCPT TO:", r[i].addr, "", &reply) ==
		    -1) {
			smtp_session_failed(s, "sending RCPT TO", st);
			smtp_xact_all(r, n, state, st);
			return -1;
		}
		if (!mail_ok)
			continue;
		smtp_session_replied(&reply, "RCPT TO", &r[i].st);
		if (reply.code / 100 == 2) {
			state[i] = X_ACCEPTED;
			nok++;
		} else
			state[i] = X_FINAL;
	}
	return nok;
}

/* smtp_xact_mail - send the envelope as this session needs it (none
 * when it went ahead) and read the MAIL reply; -1 with st when that
 * failed, -2 when the session is stale and nothing was accepted */
static int
smtp_xact_mail(struct smtp_session *s, int rset, int ahead,
    const struct smtp_xact *x, const char *state, struct smtp_reply *reply,
    struct smtp_status *st)
{
	int pipelined = (s->features & SMTP_FEAT_PIPELINING) != 0;
	char params[64];

	if (pipelined && rset &&
	    (smtp_xact_pipeline(s, 1, x, state) == -1 ||
		smtp_xact_rset_reply(s) == -1))
		return -2;
	smtp_xact_params(s, x->m, params, sizeof(params));
	if ((pipelined && !rset && !ahead &&
		smtp_xact_pipeline(s, 0, x, state) == -1) ||
	    smtp_xact_step(s, "MAIL FROM:", x->sender, params, reply) == -1) {
		/* Gone after the last final dot: as a stale RSET. */
		if (ahead)
			return -2;
		smtp_session_failed(s, "sending MAIL FROM", st);
		return -1;
	}
	if (ahead && reply->code == 421)
		return -2;
	return 0;
}

/* smtp_xact_run - deliver one message to up to n recipients; next, the
 * transaction that follows for certain, or NULL (smtp_xact.h) */
enum smtp_xact_result
smtp_xact_run(struct smtp_session *s, const struct smtp_xact *x,
    const struct smtp_xact *next, struct smtp_status *st)
{
	int pipelined = (s->features & SMTP_FEAT_PIPELINING) != 0;
	struct smtp_rcpt *r = x->r;
	struct smtp_reply reply;
	int mail_ok, nok, rset, ahead = s->ahead, rc;
	size_t n = x->n;
	char *state;

	/* A reused session is reset (and so proven alive) first, unless
	 * this envelope went out behind the last final dot. */
	s->ahead = 0;
	rset = s->xacts++ > 0 && !ahead;
	if (s->broken ||
	    (rset && !pipelined &&
		(smtp_session_send(s, "RSET\r\n", 6, s->to.command_ms) == -1 ||
		    smtp_xact_rset_reply(s) == -1)))
		return SMTP_XACT_STALE;
	if ((state = calloc(n + 1, 1)) == NULL) {
		/* Replies owed to an envelope ahead cannot be read now. */
		s->broken |= ahead;
		smtp_xact_local(
		    st, SMTP_DEFERRED, "4.3.0", "MAIL FROM", "out of memory");
		while (n-- > 0)
			r[n].st = *st;
		return SMTP_XACT_DONE;
	}
	if (smtp_xact_check(s, x, state, st) == 0) {
		s->broken |= ahead; /* not so: the same check sent it */
		goto done;
	}
	if ((rc = smtp_xact_mail(s, rset, ahead, x, state, &reply, st)) == -2) {
		s->broken = 1;
		free(state);
		return SMTP_XACT_STALE;
	}
	if (rc == -1) {
		smtp_xact_all(r, n, state, st);
		goto done;
	}
	smtp_session_replied(&reply, "MAIL FROM", st);
	if (!(mail_ok = reply.code / 100 == 2))
		smtp_xact_all(r, n, state, st);
	if ((nok = smtp_xact_rcpts(s, r, n, state, mail_ok, st)) == -1 ||
	    (!pipelined && nok == 0))
		goto done;
	if (smtp_xact_step(s, "DATA", NULL, NULL, &reply) == -1) {
		smtp_session_failed(s, "sending DATA", st);
		smtp_xact_all(r, n, state, st);
		goto done;
	}
	if (reply.code != 354) {
		if (mail_ok)
			smtp_session_replied(&reply, "DATA", st);
		smtp_xact_all(r, n, state, st);
	} else if (nok == 0) {
		/* A pipelining server said 354 with no recipient: end the
		 * empty message; if that fails, the session is done too. */
		if (smtp_session_send(s, ".\r\n", 3, s->to.command_ms) == -1 ||
		    smtp_session_reply(s, s->to.eod_ms, &reply) == -1)
			s->broken = 1;
	} else
		smtp_xact_body(s, x, state, next, st);
done:
	free(state);
	return SMTP_XACT_DONE;
}
