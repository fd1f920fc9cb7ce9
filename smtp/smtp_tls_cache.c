/*
 * smtp_tls_cache.c - the TLS context of a runner's smtp transport
 * (OpenSSL's SSL_CTX: protocols, CA store, client certificate, DANE) and
 * its session cache.
 *
 * Session cache: one SSL_SESSION per peer and policy, kept in the
 * context that all threads of a runner share (under a mutex), stored by
 * OpenSSL's new-session callback (TLS 1.3 tickets arrive after the
 * handshake) and offered at the next handshake to the same peer.  A
 * resumed session keeps the verdict of the full handshake that made it
 * and checks no certificate, so its key names everything that verdict
 * depended on: the peer, the level, the MX host, each name the
 * certificate had to match (the nexthop among them at secure) and, with
 * DANE, a digest of the TLSA records (smtp_tls_cache_key).  This file
 * calls nothing in the other smtp_tls*.c files.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include "smtp_tls_conn.h"

#define SMTP_TLS_CACHE_MAX 20000 /* sessions kept, at most */

struct smtp_tls_cached {
	struct smtp_tls_cached *next;
	SSL_SESSION *sess;
	int verdict;
	char key[];
};

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
SSL_SESSION *
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
void
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
