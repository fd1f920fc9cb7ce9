/*
 * smtp_tls.c - STARTTLS for the SMTP client, on OpenSSL 3 (no crypto of
 * our own): the levels, certificate and DANE checks through OpenSSL's
 * verifier and its DANE API, the session cache, the record layer (set
 * under the session as its struct smtp_session_io, so smtp_session.c
 * calls it without calling up into this file).
 *
 * The socket stays non-blocking: the handshake, reads and writes return
 * on WANT_READ/WANT_WRITE and the session's poll() waits with the stage's
 * deadline, so a stalled handshake costs smtp_starttls_timeout at most.
 *
 * The chain is always checked (OpenSSL does so even when told not to
 * insist), and a callback notes what failed: the chain, or only the
 * name.  That gives Postfix's four words for a session (Anonymous,
 * Untrusted, Trusted, Verified) at every level; only verify, secure and
 * dane with usable TLSA records make a failure fatal.
 *
 * Session cache: one SSL_SESSION per peer and policy, kept in the
 * context that all threads of a runner share (under a mutex), stored by
 * OpenSSL's new-session callback (TLS 1.3 tickets arrive after the
 * handshake) and offered at the next handshake to the same peer.  A
 * resumed session keeps the verdict of the full handshake that made it
 * and checks no certificate, so its key names everything that verdict
 * depended on: the peer, the level, the MX host, each name the
 * certificate had to match (the nexthop among them at secure) and, with
 * DANE, a digest of the TLSA records (smtp_tls_cache_key).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "clock.h"
#include "smtp_tls.h"

const char *const smtp_tls_level_names[SMTP_TLS_NLEVEL] = {
    "none", "may", "encrypt", "dane", "verify", "secure"};

static const char *const smtp_tls_state_names[] = {
    "none", "anonymous", "untrusted", "trusted", "verified"};

#define SMTP_TLS_CACHE_BUCKETS 1024
#define SMTP_TLS_CACHE_MAX 20000 /* sessions kept, at most */
#define SMTP_TLS_KEY_MAX 600

/* A verdict bit, noted by the verify callback. */
#define SMTP_TLS_BAD_CHAIN 0x1
#define SMTP_TLS_BAD_NAME 0x2
#define SMTP_TLS_NAMES_SET 0x4 /* names were given to check */

struct smtp_tls_cached {
	struct smtp_tls_cached *next;
	SSL_SESSION *sess;
	int verdict;
	char key[];
};

struct smtp_tls_ctx {
	SSL_CTX *ssl_ctx;
	pthread_mutex_t mu;
	struct smtp_tls_cached *bucket[SMTP_TLS_CACHE_BUCKETS];
	size_t ncached;
	unsigned long full, resumed;
};

/* One TLS connection, hung from its session while TLS is on. */
struct smtp_tls_conn {
	SSL *ssl;
	struct smtp_tls_ctx *ctx;
	int mandatory; /* a failed check ends the handshake */
	int verdict;   /* SMTP_TLS_BAD_* noted during the handshake */
	int verify_err;
	int dane_unusable; /* TLSA records, none usable: gone on at may */
	char key[SMTP_TLS_KEY_MAX];
};

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

/* smtp_tls_cache_hash - FNV-1a of a cache key */
static unsigned
smtp_tls_cache_hash(const char *key)
{
	unsigned h = 2166136261u;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h % SMTP_TLS_CACHE_BUCKETS;
}

/* smtp_tls_new_session - OpenSSL's callback: keep the session for the
 * next connection to this peer; 1 when we took the reference */
static int
smtp_tls_new_session(SSL *ssl, SSL_SESSION *sess)
{
	struct smtp_session *s = SSL_get_app_data(ssl);
	struct smtp_tls_conn *c;
	struct smtp_tls_cached **pp, *e;
	size_t klen;

	if (s == NULL || (c = s->tls) == NULL || c->key[0] == '\0' ||
	    !SSL_SESSION_is_resumable(sess))
		return 0;
	/* A mandatory check that failed never gets this far; a session of
	 * a failed optional one is as good as a new handshake. */
	klen = strlen(c->key) + 1;
	pthread_mutex_lock(&c->ctx->mu);
	for (pp = &c->ctx->bucket[smtp_tls_cache_hash(c->key)]; *pp != NULL;
	     pp = &(*pp)->next)
		if (strcmp((*pp)->key, c->key) == 0)
			break;
	if ((e = *pp) != NULL) {
		SSL_SESSION_free(e->sess);
	} else if (c->ctx->ncached < SMTP_TLS_CACHE_MAX &&
		   (e = malloc(sizeof(*e) + klen)) != NULL) {
		memcpy(e->key, c->key, klen);
		e->next = NULL;
		*pp = e;
		c->ctx->ncached++;
	}
	if (e != NULL) {
		e->sess = sess;
		e->verdict = c->verdict;
	}
	pthread_mutex_unlock(&c->ctx->mu);
	return e != NULL;
}

/* smtp_tls_cache_get - a session to offer to this peer, or NULL */
static SSL_SESSION *
smtp_tls_cache_get(struct smtp_tls_ctx *ctx, const char *key, int *verdict)
{
	struct smtp_tls_cached *e;
	SSL_SESSION *sess = NULL;

	pthread_mutex_lock(&ctx->mu);
	for (e = ctx->bucket[smtp_tls_cache_hash(key)]; e != NULL; e = e->next)
		if (strcmp(e->key, key) == 0) {
			if (SSL_SESSION_up_ref(e->sess) == 1) {
				sess = e->sess;
				*verdict = e->verdict;
			}
			break;
		}
	pthread_mutex_unlock(&ctx->mu);
	return sess;
}

/* smtp_tls_ctx_new - the context of a runner's smtp transport */
struct smtp_tls_ctx *
smtp_tls_ctx_new(const struct smtp_tls_config *cf, char *why, size_t whylen)
{
	struct smtp_tls_ctx *ctx;
	int minv;

	if (strcasecmp(cf->min_protocol, "TLSv1.3") == 0)
		minv = TLS1_3_VERSION;
	else if (strcasecmp(cf->min_protocol, "TLSv1.2") == 0)
		minv = TLS1_2_VERSION;
	else if (strcasecmp(cf->min_protocol, "TLSv1.1") == 0)
		minv = TLS1_1_VERSION;
	else if (strcasecmp(cf->min_protocol, "TLSv1") == 0)
		minv = TLS1_VERSION;
	else {
		snprintf(why, whylen, "unknown TLS protocol \"%s\"",
		    cf->min_protocol);
		return NULL;
	}
	if ((ctx = calloc(1, sizeof(*ctx))) == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&ctx->mu, NULL);
	ERR_clear_error();
	if ((ctx->ssl_ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    SSL_CTX_set_min_proto_version(ctx->ssl_ctx, minv) != 1 ||
	    SSL_CTX_dane_enable(ctx->ssl_ctx) <= 0)
		goto ssl_fail;
	if (cf->cafile[0] != '\0') {
		if (SSL_CTX_load_verify_locations(
			ctx->ssl_ctx, cf->cafile, NULL) != 1) {
			snprintf(
			    why, whylen, "cannot load CAfile %s", cf->cafile);
			goto fail;
		}
	} else if (SSL_CTX_set_default_verify_paths(ctx->ssl_ctx) != 1)
		goto ssl_fail;
	if (cf->cert_file[0] != '\0' &&
	    (SSL_CTX_use_certificate_chain_file(ctx->ssl_ctx, cf->cert_file) !=
		    1 ||
		SSL_CTX_use_PrivateKey_file(ctx->ssl_ctx,
		    cf->key_file[0] ? cf->key_file : cf->cert_file,
		    SSL_FILETYPE_PEM) != 1 ||
		SSL_CTX_check_private_key(ctx->ssl_ctx) != 1)) {
		snprintf(why, whylen, "cannot load client certificate %s",
		    cf->cert_file);
		goto fail;
	}
	SSL_CTX_set_mode(ctx->ssl_ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
					   SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_session_cache_mode(ctx->ssl_ctx,
	    SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(ctx->ssl_ctx, smtp_tls_new_session);
	return ctx;
ssl_fail:
	snprintf(why, whylen, "cannot make the TLS context: %s",
	    ERR_reason_error_string(ERR_peek_last_error()));
fail:
	ERR_clear_error();
	smtp_tls_ctx_free(ctx);
	return NULL;
}

/* smtp_tls_ctx_free - the context and its cached sessions */
void
smtp_tls_ctx_free(struct smtp_tls_ctx *ctx)
{
	struct smtp_tls_cached *e;
	int i;

	if (ctx == NULL)
		return;
	for (i = 0; i < SMTP_TLS_CACHE_BUCKETS; i++)
		while ((e = ctx->bucket[i]) != NULL) {
			ctx->bucket[i] = e->next;
			SSL_SESSION_free(e->sess);
			free(e);
		}
	SSL_CTX_free(ctx->ssl_ctx);
	pthread_mutex_destroy(&ctx->mu);
	free(ctx);
}

/* smtp_tls_ctx_counts - full and resumed handshakes so far */
void
smtp_tls_ctx_counts(
    struct smtp_tls_ctx *ctx, unsigned long *full, unsigned long *resumed)
{
	pthread_mutex_lock(&ctx->mu);
	*full = ctx->full;
	*resumed = ctx->resumed;
	pthread_mutex_unlock(&ctx->mu);
}

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

/* smtp_tls_tlsa_digest - SHA-256 of the TLSA records in force, as hex
 * in out (2 * SHA256 + 1 bytes); -1 on error */
static int
smtp_tls_tlsa_digest(const struct mx_tlsa_list *l, char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE], head[3];
	unsigned int mdlen, i;
	EVP_MD_CTX *ctx;
	size_t j;
	int ok;

	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
	for (j = 0; ok && j < l->n; j++) {
		head[0] = l->v[j].usage;
		head[1] = l->v[j].selector;
		head[2] = l->v[j].mtype;
		ok = EVP_DigestUpdate(ctx, head, sizeof(head)) == 1 &&
		     EVP_DigestUpdate(ctx, &l->v[j].len, sizeof(l->v[j].len)) ==
			 1 &&
		     EVP_DigestUpdate(ctx, l->v[j].data, l->v[j].len) == 1;
	}
	ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1;
	EVP_MD_CTX_free(ctx);
	for (i = 0; ok && i < mdlen; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return ok ? 0 : -1;
}

/* smtp_tls_cache_key - the session cache key: everything a resumed
 * session's verdict depends on (peer, level, DANE, MX host, each name to
 * match, the TLSA records); "" (never resumed) when it does not fit */
static void
smtp_tls_cache_key(struct smtp_tls_conn *c, const struct smtp_session *s,
    const struct smtp_tls_policy *p, int dane, const char **names, int n)
{
	char tlsa[2 * EVP_MAX_MD_SIZE + 1] = "";
	size_t len;
	int i;

	if (dane == 1 && smtp_tls_tlsa_digest(p->tlsa, tlsa) == -1) {
		c->key[0] = '\0';
		return;
	}
	len = (size_t)snprintf(c->key, sizeof(c->key), "%s|%d|%s|%s|", s->peer,
	    (int)p->level + 10 * dane, p->host ? p->host : "", tlsa);
	for (i = 0; i < n && len < sizeof(c->key); i++)
		len += (size_t)snprintf(c->key + len, sizeof(c->key) - len,
		    "%s%s", i ? ":" : "", names[i]);
	if (len >= sizeof(c->key))
		c->key[0] = '\0'; /* too long to cache: never resumed */
}

/* smtp_tls_setup - the SSL object for a connection: SNI, names to
 * match, DANE, the cached session; -1 on error */
static int
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
static enum smtp_tls_state
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

/* smtp_tls_state_name - "none", "anonymous", ..., "verified" */
const char *
smtp_tls_state_name(const struct smtp_session *s)
{
	return smtp_tls_state_names[s->tls_state];
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
