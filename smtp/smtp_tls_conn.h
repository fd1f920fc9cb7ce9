/*
 * smtp_tls_conn.h - what the files of STARTTLS share and nothing outside
 * them sees (smtp_tls.h is the public side): the context with its
 * session cache (smtp_tls_cache.c), one TLS connection hung from its
 * session, the verdict bits the verify callback notes, and the calls
 * between the files, which go one way: smtp_tls.c (STARTTLS, the
 * handshake, the record layer) -> smtp_tls_verify.c (the SSL object's
 * names, DANE and verdict) -> smtp_tls_cache.c (context, cache keys).
 */
#ifndef MJQ_SMTP_TLS_CONN_H
#define MJQ_SMTP_TLS_CONN_H

#include <pthread.h>

#include <openssl/ssl.h>

#include "smtp_tls.h"

#define SMTP_TLS_CACHE_BUCKETS 1024
#define SMTP_TLS_KEY_MAX 600

/* A verdict bit, noted by the verify callback. */
#define SMTP_TLS_BAD_CHAIN 0x1
#define SMTP_TLS_BAD_NAME 0x2
#define SMTP_TLS_NAMES_SET 0x4 /* names were given to check */

struct smtp_tls_cached;

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

/* smtp_tls_cache.c */
SSL_SESSION *smtp_tls_cache_get(struct smtp_tls_ctx *, const char *, int *);
void smtp_tls_cache_key(struct smtp_tls_conn *, const struct smtp_session *,
    const struct smtp_tls_policy *, int, const char **, int);

/* smtp_tls_verify.c */
int smtp_tls_setup(struct smtp_session *, struct smtp_tls_ctx *,
    const struct smtp_tls_policy *, int *);
enum smtp_tls_state smtp_tls_verdict(SSL *, int);

#endif
