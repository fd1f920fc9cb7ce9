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
smtp_xact_check(struct smtp_session *s, const char *sender, struct smtp_rcpt *r,
    size_t n, const struct smtp_data_msg *m, char *state,
    struct smtp_status *st)
{
	char cmd[SMTP_XACT_CMD_MAX];
	size_t i, npending = 0;

	smtp_xact_local(st, SMTP_BOUNCED, "5.1.3", "RCPT TO",
	    "bad recipient address syntax");
	for (i = 0; i < n; i++)
		if (smtp_xact_format(cmd, sizeof(cmd), "", r[i].addr, "") == -1)
			r[i].st = *st;
		else {
			state[i] = X_PENDING;
			npending++;
		}
	if (smtp_xact_format(cmd, sizeof(cmd), "", sender, "") == -1) {
		smtp_xact_local(st, SMTP_BOUNCED, "5.1.7", "MAIL FROM",
		    "bad sender address syntax");
		smtp_xact_all(r, n, state, st);
		return 0;
	}
	if ((s->features & SMTP_FEAT_SIZE) && s->size_limit > 0 &&
	    m->wire_size > s->size_limit) {
		smtp_xact_local(st, SMTP_BOUNCED, "5.3.4", "MAIL FROM", "");
		snprintf(st->text, sizeof(st->text),
		    "message size %lld exceeds size limit %lld of server %s",
		    (long long)m->wire_size, s->size_limit, s->peer);
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

/* smtp_xact_pipeline - RSET when rset, MAIL, every RCPT and DATA in
 * one write */
static int
smtp_xact_pipeline(struct smtp_session *s, int rset, const char *sender,
    const struct smtp_rcpt *r, size_t n, const char *state,
    const struct smtp_data_msg *m)
{
	char params[64], *buf;
	size_t len = 0, i;
	int rc = -1, k;

	if ((buf = reallocarray(NULL, n + 3, SMTP_XACT_CMD_MAX)) == NULL)
		return -1;
	smtp_xact_params(s, m, params, sizeof(params));
	if (rset) {
		memcpy(buf, "RSET\r\n", 6);
		len = 6;
	}
	len += smtp_xact_format(
	    buf + len, SMTP_XACT_CMD_MAX, "MAIL FROM:", sender, params);
	for (i = 0; i < n; i++)
		if (state[i] == X_PENDING &&
		    (k = smtp_xact_format(buf + len, SMTP_XACT_CMD_MAX,
			 "RCPT TO:", r[i].addr, "")) > 0)
			len += k;
	memcpy(buf + len, "DATA\r\n", 6);
	len += 6;
	rc = smtp_session_send(s, buf, len, s->to.command_ms);
	free(buf);
	return rc;
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

/* smtp_xact_body - the text and the final dot, then its reply */
static void
smtp_xact_body(struct smtp_session *s, struct smtp_rcpt *r, size_t n,
    char *state, const struct smtp_data_msg *m, struct smtp_status *st)
{
	struct smtp_reply reply;
	int rc;

	if ((rc = smtp_data_send(s, m)) == -2) {
		/* No final dot: the server must not take a cut message. */
		s->broken = 1;
		smtp_xact_local(st, SMTP_DEFERRED, "4.3.0", "message body",
		    "cannot read the message text");
	} else if (rc == -1)
		smtp_session_failed(s, "sending the message body", st);
	else if (smtp_session_reply(s, s->to.eod_ms, &reply) == -1)
		smtp_session_failed(s,
		    "sending end of data -- message may be sent more than once",
		    st);
	else
		smtp_session_replied(&reply, "end of data", st);
	smtp_xact_all(r, n, state, st);
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

/* smtp_xact_run - deliver one message to up to n recipients */
enum smtp_xact_result
smtp_xact_run(struct smtp_session *s, const char *sender, struct smtp_rcpt *r,
    size_t n, const struct smtp_data_msg *m, struct smtp_status *st)
{
	int pipelined = (s->features & SMTP_FEAT_PIPELINING) != 0;
	struct smtp_reply reply;
	char params[64], *state;
	int mail_ok, nok, rset;

	/* A reused session is reset (and so proven alive) first. */
	rset = s->xacts++ > 0;
	if (s->broken ||
	    (rset && !pipelined &&
		(smtp_session_send(s, "RSET\r\n", 6, s->to.command_ms) ==
			-1 ||
		    smtp_xact_rset_reply(s) == -1)))
		return SMTP_XACT_STALE;
	if ((state = calloc(n + 1, 1)) == NULL) {
		smtp_xact_local(
		    st, SMTP_DEFERRED, "4.3.0", "MAIL FROM", "out of memory");
		while (n-- > 0)
			r[n].st = *st;
		return SMTP_XACT_DONE;
	}
	if (smtp_xact_check(s, sender, r, n, m, state, st) == 0)
		goto done;
	smtp_xact_params(s, m, params, sizeof(params));
	if (pipelined && rset &&
	    (smtp_xact_pipeline(s, 1, sender, r, n, state, m) == -1 ||
		smtp_xact_rset_reply(s) == -1)) {
		free(state);
		return SMTP_XACT_STALE;
	}
	if ((pipelined && !rset &&
		smtp_xact_pipeline(s, 0, sender, r, n, state, m) == -1) ||
	    smtp_xact_step(s, "MAIL FROM:", sender, params, &reply) == -1) {
		smtp_session_failed(s, "sending MAIL FROM", st);
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
		smtp_xact_body(s, r, n, state, m, st);
done:
	free(state);
	return SMTP_XACT_DONE;
}
