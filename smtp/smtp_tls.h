/*
 * smtp_tls.h - STARTTLS for the SMTP client, on OpenSSL 3: the security
 * levels of Postfix's smtp_tls_security_level, the per-connection policy
 * (names to match, DANE TLSA records), a context shared by the threads
 * of a runner with its session cache, and the TLS record layer that
 * smtp_tls_start installs under the session's primitives (struct
 * smtp_session_io).
 *
 * Levels (Postfix's meaning):
 *   none     never STARTTLS
 *   may      STARTTLS when offered; a failed handshake: the caller
 *            retries the delivery in clear text on a new connection
 *   encrypt  TLS or nothing; no certificate check
 *   dane     TLSA records (DNSSEC-validated) make verification
 *            mandatory for that host; without usable records: may
 *   verify   chain to a trusted CA, name matched against the MX host
 *   secure   chain to a trusted CA, name matched against the nexthop
 * At encrypt and above a server without STARTTLS or a failed handshake
 * defers the recipients with dsn 4.7.x.
 */
#ifndef MJQ_SMTP_TLS_H
#define MJQ_SMTP_TLS_H

#include <stddef.h>

#include "mx_tlsa.h"
#include "smtp_session.h"

enum smtp_tls_level {
	SMTP_TLS_NONE,
	SMTP_TLS_MAY,
	SMTP_TLS_ENCRYPT,
	SMTP_TLS_DANE,
	SMTP_TLS_VERIFY,
	SMTP_TLS_SECURE,
	SMTP_TLS_NLEVEL
};

#define SMTP_TLS_MATCH_MAX 256 /* the match= list, colon-separated */
#define SMTP_TLS_NAMES_MAX 8   /* names in it */

/* How to secure one connection: filled by the caller per MX host. */
struct smtp_tls_policy {
	enum smtp_tls_level level;
	const char *match;   /* "hostname:nexthop:dot-nexthop:name..."; NULL:
				the level's default */
	const char *host;    /* the MX host name: SNI, "hostname" */
	const char *nexthop; /* the destination's domain: "nexthop" */
	const struct mx_tlsa_list *tlsa; /* dane: the host's records */
};

/* The context's settings; the strings are copied where needed. */
struct smtp_tls_config {
	const char *cafile;	  /* "" : the system CA store */
	const char *cert_file;	  /* client certificate, "" for none */
	const char *key_file;	  /* its key; "" : in cert_file */
	const char *min_protocol; /* "TLSv1.2", "TLSv1.3", ... */
};

struct smtp_tls_ctx;

int smtp_tls_level_lookup(const char *, enum smtp_tls_level *);
int smtp_tls_policy_parse(
    const char *, enum smtp_tls_level *, char *, size_t, char *, size_t);
struct smtp_tls_ctx *smtp_tls_ctx_new(
    const struct smtp_tls_config *, char *, size_t);
void smtp_tls_ctx_free(struct smtp_tls_ctx *);
void smtp_tls_ctx_counts(
    struct smtp_tls_ctx *, unsigned long *, unsigned long *);
int smtp_tls_start(struct smtp_session *, struct smtp_tls_ctx *,
    const struct smtp_tls_policy *, const char *, int, struct smtp_status *);
size_t smtp_tls_describe(const struct smtp_session *, char *, size_t);
int smtp_tls_verify_error(const struct smtp_session *);
int smtp_tls_dane_unusable(const struct smtp_session *);

#endif
