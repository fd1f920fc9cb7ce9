/*
 * testsmtpd_tls.c - STARTTLS on mj_testsmtpd's side (OpenSSL, server).
 *
 * With --tls-cert and --tls-key the server offers STARTTLS; once the 220
 * is flushed the session's reads and writes go through SSL_read and
 * SSL_write, and the handshake happens inside them.  Each finished
 * handshake is logged (--tls-log) so the tests see the protocol, the SNI
 * name and whether the session was resumed.  --tls-stall answers
 * STARTTLS and then never handshakes; --tls-inject sends a line in clear
 * text after the 220 (testsmtpd_smtp.c), then handshakes as usual.  The
 * only file that calls OpenSSL.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "testsmtpd.h"

static SSL_CTX *tls_ctx;
static FILE *tlslogfp;

/* tls_open - load the certificate and key, open the handshake log */
void
tls_open(void)
{
	if (cf.tls_cert != NULL) {
		if ((tls_ctx = SSL_CTX_new(TLS_server_method())) == NULL ||
		    SSL_CTX_use_certificate_chain_file(tls_ctx, cf.tls_cert) !=
			1 ||
		    SSL_CTX_use_PrivateKey_file(
			tls_ctx, cf.tls_key, SSL_FILETYPE_PEM) != 1 ||
		    SSL_CTX_set_session_id_context(tls_ctx,
			(const unsigned char *)"mj_testsmtpd", 12) != 1)
			errx(1, "cannot load %s and %s: %s", cf.tls_cert,
			    cf.tls_key,
			    ERR_reason_error_string(ERR_peek_last_error()));
		SSL_CTX_set_mode(
		    tls_ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
				 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	}
	if (cf.tls_log != NULL && (tlslogfp = fopen(cf.tls_log, "a")) == NULL)
		err(1, "%s", cf.tls_log);
}

/* tls_close - free the context at exit */
void
tls_close(void)
{
	SSL_CTX_free(tls_ctx);
}

/* tls_offered - whether this session may say STARTTLS now */
int
tls_offered(const struct session *s)
{
	return tls_ctx != NULL && s->ssl == NULL;
}

/* tls_logline - the handshake is done: log protocol, resumption, SNI */
static void
tls_logline(struct session *s)
{
	const char *sni;

	if (s->tls_logged || !SSL_is_init_finished(s->ssl))
		return;
	s->tls_logged = 1;
	if (tlslogfp == NULL)
		return;
	sni = SSL_get_servername(s->ssl, TLSEXT_NAMETYPE_host_name);
	fprintf(tlslogfp, "%lu %s resumed=%d sni=%s\n", s->id,
	    SSL_get_version(s->ssl), SSL_session_reused(s->ssl),
	    sni ? sni : "-");
	fflush(tlslogfp);
}

/* tls_result - an SSL_read/SSL_write result as read(2)'s: bytes, -1
 * with EAGAIN to wait, 0 for the end (close_notify, error, reset) */
static ssize_t
tls_result(struct session *s, int r)
{
	int e = SSL_get_error(s->ssl, r);

	s->ssl_want_out = 0;
	if (r > 0)
		return r;
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		s->ssl_want_out = e == SSL_ERROR_WANT_WRITE;
		errno = EAGAIN;
		return -1;
	}
	ERR_clear_error();
	return 0;
}

/* tls_begin - STARTTLS answered and flushed: the handshake starts with
 * the next read (or never, with --tls-stall) */
void
tls_begin(struct session *s)
{
	s->tls_next = 0;
	if (cf.tls_stall) {
		s->mode = M_SILENT;
		return;
	}
	if ((s->ssl = SSL_new(tls_ctx)) == NULL ||
	    SSL_set_fd(s->ssl, s->fd) != 1)
		errx(1, "SSL_new failed");
	SSL_set_accept_state(s->ssl);
}

/* tls_pending - whether OpenSSL holds decrypted bytes not yet read */
int
tls_pending(const struct session *s)
{
	return s->ssl != NULL && SSL_pending(s->ssl) > 0;
}

/* tls_read - SSL_read as read(2), logging the handshake once done */
ssize_t
tls_read(struct session *s, char *buf, size_t len)
{
	ssize_t n;

	n = tls_result(s, SSL_read(s->ssl, buf, (int)len));
	tls_logline(s);
	return n;
}

/* tls_write - SSL_write as send(2): -1 with EPIPE for the end */
ssize_t
tls_write(struct session *s, const char *buf, size_t len)
{
	ssize_t n;

	if ((n = tls_result(s, SSL_write(s->ssl, buf, (int)len))) == 0) {
		errno = EPIPE;
		return -1;
	}
	return n;
}

/* tls_end - the session closes: send close_notify, free the SSL */
void
tls_end(struct session *s)
{
	if (s->ssl != NULL) {
		(void)SSL_shutdown(s->ssl);
		SSL_free(s->ssl);
		s->ssl = NULL;
	}
}
