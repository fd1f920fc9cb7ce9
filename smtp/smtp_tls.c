/*
 * smtp_tls.c - STARTTLS for the SMTP client, on OpenSSL 3 (no crypto of
 * our own): the levels and [tls_policy] values, the STARTTLS command and
 * handshake, and the record layer (set under the session as its struct
 * smtp_session_io, so smtp_session.c calls it without calling up into
 * this file).  The SSL object's names, DANE and verdict are
 * smtp_tls_verify.c's; the context and its session cache are
 * smtp_tls_cache.c's.
 *
 * The socket stays non-blocking: the handshake, reads and writes return
 * on WANT_READ/WANT_WRITE and the session's poll() waits with the stage's
 * deadline, so a stalled handshake costs smtp_starttls_timeout at most.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "clock.h"
#include "smtp_tls_conn.h"

static const char *const smtp_tls_level_names[SMTP_TLS_NLEVEL] = {
    "none", "may", "encrypt", "dane", "verify", "secure"};

static long smtp_tls_read(struct smtp_session *, char *, size_t, short *);
static long smtp_tls_write(
    struct smtp_session *, const char *, size_t, short *);
static void smtp_tls_end(struct smtp_session *);

/* The record layer smtp_tls_start installs under the session. */
static const struct smtp_session_io smtp_tls_io_ops = {
    smtp_tls_read, smtp_tls_write, smtp_tls_end};

/* smtp_tls_level_lookup - a level by name */
int
smtp_tls_level_lookup(const char *name, enum smtp_tls_level *l)
{
	int i;

	for (i = 0; i < SMTP_TLS_NLEVEL; i++)
		if (strcasecmp(name, smtp_tls_level_names[i]) == 0) {
			*l = (enum smtp_tls_level)i;
			return 0;
		}
	return -1;
}

/* smtp_tls_policy_parse - "level [match=a:b:c]", a [tls_policy] value */
int
smtp_tls_policy_parse(const char *value, enum smtp_tls_level *l, char *match,
    size_t matchlen, char *err, size_t errlen)
{
	char buf[SMTP_TLS_MATCH_MAX + 64], *p, *word, *save = NULL;

	match[0] = '\0';
	if (strlcpy(buf, value, sizeof(buf)) >= sizeof(buf)) {
		snprintf(err, errlen, "policy too long");
		return -1;
	}
	if ((word = strtok_r(buf, " \t", &save)) == NULL ||
	    smtp_tls_level_lookup(word, l) == -1) {
		snprintf(err, errlen,
		    "want a level (none, may, encrypt, dane, verify, secure)");
		return -1;
	}
	while ((word = strtok_r(NULL, " \t", &save)) != NULL) {
		if (strncmp(word, "match=", 6) != 0) {
			snprintf(err, errlen, "unknown attribute \"%s\"", word);
			return -1;
		}
		p = word + 6;
		if (*p == '\0' || strlcpy(match, p, matchlen) >= matchlen) {
			snprintf(err, errlen, "bad match= list");
			return -1;
		}
	}
	return 0;
}

/* smtp_tls_fail - a status for a TLS failure at encrypt and above */
static int
smtp_tls_fail(struct smtp_session *s, struct smtp_status *st, const char *dsn,
    const char *fmt, const char *detail)
{
	memset(st, 0, sizeof(*st));
	st->outcome = SMTP_DEFERRED;
	st->feedback = SMTP_FEEDBACK_NEGATIVE;
	st->stage = "STARTTLS";
	(void)strlcpy(st->dsn, dsn, sizeof(st->dsn));
	snprintf(st->text, sizeof(st->text), fmt, s->peer, detail);
	return -1;
}

/* smtp_tls_errors - OpenSSL's error queue on one line: the last error
 * (the most specific), or the system error */
static void
smtp_tls_errors(struct smtp_session *s, int sslerr, char *buf, size_t len)
{
	unsigned long e, last = 0;

	while ((e = ERR_get_error()) != 0)
		last = e;
	if (s->tls != NULL && s->tls->verify_err != 0)
		snprintf(buf, len, "certificate verification failed: %s",
		    X509_verify_cert_error_string(s->tls->verify_err));
	else if (last != 0)
		ERR_error_string_n(last, buf, len);
	else if (sslerr == SSL_ERROR_SYSCALL && errno != 0)
		snprintf(buf, len, "%s", strerror(errno));
	else
		snprintf(buf, len, "lost connection");
}

/* smtp_tls_handshake - SSL_connect until done or the deadline; 0 or the
 * SSL error (-1 for the timeout) */
static int
smtp_tls_handshake(struct smtp_session *s, long long deadline)
{
	int r, e;

	for (;;) {
		errno = 0;
		if ((r = SSL_connect(s->tls->ssl)) == 1)
			return 0;
		e = SSL_get_error(s->tls->ssl, r);
		if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
			return e;
		if (smtp_session_wait(s,
			e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
			deadline) == -1)
			return -1;
	}
}

/* smtp_tls_optional - the level lets a failure fall back to clear text:
 * may, and dane without authenticated TLSA records */
static int
smtp_tls_optional(const struct smtp_tls_policy *p)
{
	return p->level == SMTP_TLS_MAY ||
	       (p->level == SMTP_TLS_DANE &&
		   (p->tlsa == NULL || !p->tlsa->secure || p->tlsa->n == 0));
}

/* smtp_tls_begin - STARTTLS and its reply: 1 go on with the handshake,
 * 0 go on in clear text, 2 refused: go on in clear text (st->text says
 * so), -1 failed (st says why) */
static int
smtp_tls_begin(struct smtp_session *s, const struct smtp_tls_policy *p,
    int timeout_ms, struct smtp_status *st)
{
	struct smtp_reply r;
	char text[300];

	if (!(s->features & SMTP_FEAT_STARTTLS)) {
		if (smtp_tls_optional(p))
			return 0;
		return smtp_tls_fail(s, st, "4.7.4",
		    "TLS is required, but was not offered by host %s%s", "");
	}
	if (smtp_session_send(s, "STARTTLS\r\n", 10, timeout_ms) == -1 ||
	    smtp_session_reply(s, timeout_ms, &r) == -1) {
		smtp_session_failed(s, "sending STARTTLS", st);
		st->feedback = SMTP_FEEDBACK_NEGATIVE;
		return -1;
	}
	if (r.code == 220) {
		/* Anything the server sent beyond its 220 was not
		 * protected: a STARTTLS injection.  Refuse it and end the
		 * session, whose state is now unknown (as a failed
		 * handshake: at may, clear text on a new connection). */
		if (s->inoff < s->inlen) {
			s->broken = 1;
			return smtp_tls_fail(s, st, "4.7.5",
			    "%s sent data after its STARTTLS reply%s", "");
		}
		return 1;
	}
	smtp_reply_format(&r, text, sizeof(text));
	if (smtp_tls_optional(p)) {
		/* Refused: the session goes on in clear text, and the
		 * caller logs why in Postfix's words. */
		memset(st, 0, sizeof(*st));
		st->stage = "STARTTLS";
		snprintf(st->text, sizeof(st->text),
		    "host %s refused to start TLS: %.150s", s->peer, text);
		return 2;
	}
	return smtp_tls_fail(s, st, r.code / 100 == 5 ? "4.7.5" : "4.7.4",
	    "TLS is required, but host %s refused to start TLS: %.150s", text);
}

/* smtp_tls_start - STARTTLS after EHLO as the level asks, the handshake
 * within timeout_ms, EHLO again; 0 go on (with or without TLS), 1 go on
 * in clear text: the server refused STARTTLS where the level allows it
 * (st->text says so), -1 the session failed, -2 STARTTLS failed where
 * the level allows the caller to retry in clear text on a new
 * connection (st says why) */
int
smtp_tls_start(struct smtp_session *s, struct smtp_tls_ctx *ctx,
    const struct smtp_tls_policy *p, const char *helo_name, int timeout_ms,
    struct smtp_status *st)
{
	char detail[300];
	int r, cached_verdict = 0;

	if (p->level == SMTP_TLS_NONE)
		return 0;
	if (ctx == NULL && (s->features & SMTP_FEAT_STARTTLS)) {
		if (smtp_tls_optional(p))
			return 0;
		return smtp_tls_fail(s, st, "4.7.5",
		    "TLS is required for %s, but no TLS context could be "
		    "made%s",
		    "");
	}
	if ((r = smtp_tls_begin(s, p, timeout_ms, st)) == 2)
		return 1;
	if (r <= 0)
		return r == -1 && s->broken && smtp_tls_optional(p) ? -2 : r;
	if ((s->tls = calloc(1, sizeof(*s->tls))) == NULL)
		return smtp_tls_fail(s, st, "4.3.0", "%s: out of memory%s", "");
	s->tls->ctx = ctx;
	s->io = &smtp_tls_io_ops;
	ERR_clear_error();
	if (smtp_tls_setup(s, ctx, p, &cached_verdict) == -1) {
		smtp_tls_errors(s, 0, detail, sizeof(detail));
		return smtp_tls_fail(
		    s, st, "4.7.5", "cannot set up TLS for %s: %.150s", detail);
	}
	if ((r = smtp_tls_handshake(s, clock_ms() + timeout_ms)) != 0) {
		if (r == -1)
			(void)strlcpy(detail, "timed out", sizeof(detail));
		else
			smtp_tls_errors(s, r, detail, sizeof(detail));
		s->broken = 1;
		smtp_tls_fail(s, st, "4.7.5",
		    "TLS handshake with %s failed: %.150s", detail);
		ERR_clear_error();
		return smtp_tls_optional(p) ||
			       (p->level == SMTP_TLS_DANE && !s->tls->mandatory)
			   ? -2
			   : -1;
	}
	s->tls_resumed = SSL_session_reused(s->tls->ssl);
	if (s->tls_resumed)
		s->tls->verdict = cached_verdict;
	s->tls_state = smtp_tls_verdict(s->tls->ssl, s->tls->verdict);
	pthread_mutex_lock(&ctx->mu);
	if (s->tls_resumed)
		ctx->resumed++;
	else
		ctx->full++;
	pthread_mutex_unlock(&ctx->mu);
	/* RFC 3207 4.2: forget what the server said before; ask again. */
	if (smtp_session_hello(s, helo_name, st) == -1) {
		st->outcome = SMTP_DEFERRED;
		st->feedback = SMTP_FEEDBACK_NEGATIVE;
		if (st->dsn[0] == '5')
			st->dsn[0] = '4';
		return -1;
	}
	return 0;
}

/* smtp_tls_describe - Postfix's line for the session: "Verified TLS
 * connection established to host[addr]:port: TLSv1.3 with cipher X
 * (256/256 bits)", and " (resumed)" for a resumed session */
size_t
smtp_tls_describe(const struct smtp_session *s, char *buf, size_t len)
{
	static const char *const words[] = {
	    "", "Anonymous", "Untrusted", "Trusted", "Verified"};
	const SSL_CIPHER *cipher;
	int bits = 0, alg = 0;
	int n;

	if (s->tls == NULL || s->tls->ssl == NULL) {
		buf[0] = '\0';
		return 0;
	}
	if ((cipher = SSL_get_current_cipher(s->tls->ssl)) != NULL)
		bits = SSL_CIPHER_get_bits(cipher, &alg);
	n = snprintf(buf, len,
	    "%s TLS connection established to %s: %s with cipher %s "
	    "(%d/%d bits)%s",
	    words[s->tls_state], s->peer, SSL_get_version(s->tls->ssl),
	    cipher ? SSL_CIPHER_get_name(cipher) : "?", bits, alg,
	    s->tls_resumed ? " (resumed)" : "");
	return n < 0 ? 0 : (size_t)n;
}

/* smtp_tls_io - map an SSL_read/SSL_write result for the session: n
 * bytes, 0 wait for *want, -1 lost (errno, 0 for the end of stream),
 * -2 try again */
static long
smtp_tls_io(struct smtp_session *s, int r, short *want)
{
	int e = SSL_get_error(s->tls->ssl, r);

	if (r > 0)
		return r;
	switch (e) {
	case SSL_ERROR_WANT_READ:
		*want = POLLIN;
		return 0;
	case SSL_ERROR_WANT_WRITE:
		*want = POLLOUT;
		return 0;
	case SSL_ERROR_SYSCALL:
		if (errno == EINTR)
			return -2;
		if (errno == EAGAIN) {
			*want = *want ? *want : POLLIN;
			return 0;
		}
		ERR_clear_error();
		return -1;
	default:
		/* close_notify, or a protocol error: either way the end. */
		ERR_clear_error();
		errno = e == SSL_ERROR_ZERO_RETURN ? 0 : EPROTO;
		return -1;
	}
}

/* smtp_tls_read - SSL_read for smtp_session_reply */
static long
smtp_tls_read(struct smtp_session *s, char *buf, size_t len, short *want)
{
	errno = 0;
	return smtp_tls_io(s, SSL_read(s->tls->ssl, buf, (int)len), want);
}

/* smtp_tls_write - SSL_write for smtp_session_send */
static long
smtp_tls_write(struct smtp_session *s, const char *buf, size_t len, short *want)
{
	errno = 0;
	if (len > 1 << 30)
		len = 1 << 30;
	return smtp_tls_io(s, SSL_write(s->tls->ssl, buf, (int)len), want);
}

/* smtp_tls_end - close_notify when the session is sane, then free;
 * the session is in clear text again */
static void
smtp_tls_end(struct smtp_session *s)
{
	if (s->tls == NULL)
		return;
	if (s->tls->ssl != NULL) {
		/* One try, never a wait: the socket closes right after. */
		if (!s->broken)
			(void)SSL_shutdown(s->tls->ssl);
		SSL_free(s->tls->ssl);
	}
	ERR_clear_error();
	free(s->tls);
	s->tls = NULL;
	s->io = NULL;
}
