/*
 * smtp_tls_verify.c - certificate and name verification for one STARTTLS
 * connection, through OpenSSL's verifier and its DANE API: the SSL
 * object's SNI, the names the level asks to match, the usable TLSA
 * records, the cached session offered (smtp_tls_cache.c), and what the
 * check found, read back as Postfix's word and by TLS-RPT (tlsrpt.c).
 *
 * The chain is always checked (OpenSSL does so even when told not to
 * insist), and a callback notes what failed: the chain, or only the
 * name.  That gives Postfix's four words for a session (Anonymous,
 * Untrusted, Trusted, Verified) at every level; only verify, secure and
 * dane with usable TLSA records make a failure fatal.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "smtp_tls_conn.h"

/* smtp_tls_verify_cb - note what the chain check found; go on unless
 * the level makes the check mandatory */
static int
smtp_tls_verify_cb(int ok, X509_STORE_CTX *xs)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(
	    xs, SSL_get_ex_data_X509_STORE_CTX_idx());
	struct smtp_session *s = ssl ? SSL_get_app_data(ssl) : NULL;
	struct smtp_tls_conn *c = s ? s->tls : NULL;
	int e = X509_STORE_CTX_get_error(xs);

	if (ok || c == NULL)
		return ok;
	if (e == X509_V_ERR_HOSTNAME_MISMATCH)
		c->verdict |= SMTP_TLS_BAD_NAME;
	else
		c->verdict |= SMTP_TLS_BAD_CHAIN;
	if (c->verify_err == 0)
		c->verify_err = e;
	return !c->mandatory;
}

/* smtp_tls_names - the names to match from a match= list; n names */
static int
smtp_tls_names(const struct smtp_tls_policy *p, char *buf, size_t buflen,
    const char **names)
{
	const char *match = p->match, *w;
	char *save = NULL, *tok, *out = buf + buflen / 2;
	size_t outlen = buflen / 2;
	int n = 0;

	if (match == NULL || match[0] == '\0')
		match = p->level == SMTP_TLS_SECURE ? "nexthop:dot-nexthop"
						    : "hostname";
	if (strlcpy(buf, match, buflen / 2) >= buflen / 2)
		return 0;
	for (tok = strtok_r(buf, ":", &save);
	     tok != NULL && n < SMTP_TLS_NAMES_MAX;
	     tok = strtok_r(NULL, ":", &save)) {
		if (strcasecmp(tok, "hostname") == 0)
			w = p->host;
		else if (strcasecmp(tok, "nexthop") == 0)
			w = p->nexthop;
		else if (strcasecmp(tok, "dot-nexthop") == 0) {
			if (p->nexthop == NULL ||
			    (size_t)snprintf(out, outlen, ".%s", p->nexthop) >=
				outlen)
				continue;
			w = out;
			out += strlen(out) + 1;
			outlen -= strlen(w) + 1;
		} else
			w = tok;
		if (w != NULL && w[0] != '\0')
			names[n++] = w;
	}
	return n;
}

/* smtp_tls_dane - DANE for this connection: the usable TLSA records
 * (DANE-TA and DANE-EE; RFC 7672 2.2 leaves PKIX-TA and PKIX-EE out);
 * 1 when DANE is in force, 0 none usable, -1 error */
static int
smtp_tls_dane(SSL *ssl, const struct smtp_tls_policy *p)
{
	const struct mx_tlsa *t;
	size_t i;
	int usable = 0;

	if (p->tlsa == NULL || !p->tlsa->secure || p->tlsa->n == 0)
		return 0;
	if (SSL_dane_enable(ssl, p->host) <= 0)
		return -1;
	for (i = 0; i < p->tlsa->n; i++) {
		t = &p->tlsa->v[i];
		if (t->usage != 2 && t->usage != 3)
			continue;
		if (SSL_dane_tlsa_add(ssl, t->usage, t->selector, t->mtype,
			t->data, t->len) > 0)
			usable++;
	}
	ERR_clear_error(); /* unusable records leave errors behind */
	/* With no usable record SSL_dane_enable's check would fail every
	 * handshake; a new SSL without it is simpler than undoing it. */
	return usable > 0 ? 1 : -2;
}

/* smtp_tls_setup - the SSL object for a connection: SNI, names to
 * match, DANE, the cached session; -1 on error */
int
smtp_tls_setup(struct smtp_session *s, struct smtp_tls_ctx *ctx,
    const struct smtp_tls_policy *p, int *cached_verdict)
{
	struct smtp_tls_conn *c = s->tls;
	const char *names[SMTP_TLS_NAMES_MAX];
	char namebuf[2 * SMTP_TLS_MATCH_MAX + 2 * MX_NAME_MAX];
	struct in6_addr a6;
	SSL_SESSION *sess;
	int i, n = 0, dane = 0;

	if ((c->ssl = SSL_new(ctx->ssl_ctx)) == NULL ||
	    SSL_set_fd(c->ssl, s->fd) != 1 || SSL_set_app_data(c->ssl, s) != 1)
		return -1;
	/* SNI names a host; an address literal is no name (RFC 6066 3). */
	if (p->host != NULL && p->host[0] != '\0' &&
	    inet_pton(AF_INET, p->host, &a6) != 1 &&
	    inet_pton(AF_INET6, p->host, &a6) != 1 &&
	    SSL_set_tlsext_host_name(c->ssl, p->host) != 1)
		ERR_clear_error();
	if (p->level == SMTP_TLS_DANE &&
	    (dane = smtp_tls_dane(c->ssl, p)) < 0) {
		if (dane == -1)
			return -1;
		/* No usable record: a fresh SSL, at may. */
		SSL_free(c->ssl);
		c->ssl = NULL;
		c->dane_unusable = 1;
		struct smtp_tls_policy may = *p;
		may.level = SMTP_TLS_MAY;
		may.tlsa = NULL;
		return smtp_tls_setup(s, ctx, &may, cached_verdict);
	}
	/* DANE names its own reference host (SSL_dane_enable); otherwise
	 * the names of the level, checked at every level so the log can
	 * say Verified or Trusted. */
	if (p->level != SMTP_TLS_DANE || dane == 1)
		n = smtp_tls_names(p, namebuf, sizeof(namebuf), names);
	for (i = 0; i < n; i++)
		if ((dane == 0 || strcasecmp(names[i], p->host) != 0) &&
		    SSL_add1_host(c->ssl, names[i]) != 1)
			return -1;
	if (n > 0 || dane == 1)
		c->verdict = SMTP_TLS_NAMES_SET;
	SSL_set_hostflags(c->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	c->mandatory = p->level == SMTP_TLS_VERIFY ||
		       p->level == SMTP_TLS_SECURE || dane == 1;
	SSL_set_verify(c->ssl, c->mandatory ? SSL_VERIFY_PEER : SSL_VERIFY_NONE,
	    smtp_tls_verify_cb);
	smtp_tls_cache_key(c, s, p, dane, names, n);
	if (c->key[0] != '\0' &&
	    (sess = smtp_tls_cache_get(ctx, c->key, cached_verdict)) != NULL) {
		if (SSL_set_session(c->ssl, sess) != 1)
			ERR_clear_error();
		SSL_SESSION_free(sess);
	}
	return 0;
}

/* smtp_tls_verdict - the session's Postfix word from what was noted */
enum smtp_tls_state
smtp_tls_verdict(SSL *ssl, int verdict)
{
	X509 *peer;

	if ((peer = SSL_get0_peer_certificate(ssl)) == NULL)
		return SMTP_TLS_ANONYMOUS;
	if (verdict & SMTP_TLS_BAD_CHAIN)
		return SMTP_TLS_UNTRUSTED;
	if ((verdict & SMTP_TLS_BAD_NAME) || !(verdict & SMTP_TLS_NAMES_SET))
		return SMTP_TLS_TRUSTED;
	return SMTP_TLS_VERIFIED;
}

/* smtp_tls_verify_error - the first certificate error the chain check
 * noted on s (an X509_V_ERR_* code), 0 for none or no TLS */
int
smtp_tls_verify_error(const struct smtp_session *s)
{
	return s->tls != NULL ? s->tls->verify_err : 0;
}

/* smtp_tls_dane_unusable - s had TLSA records, none of them usable */
int
smtp_tls_dane_unusable(const struct smtp_session *s)
{
	return s->tls != NULL && s->tls->dane_unusable;
}
