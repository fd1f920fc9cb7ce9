/*
 * unsub_token.c - make and check one-click unsubscribe tokens.
 *
 * The MAC is HMAC-SHA-256 (OpenSSL's EVP_MAC) over "mjq-unsub-1", the
 * list, its domain, the address and the issue time, each ended by a
 * newline (none of them can hold one), truncated to 128 bits and written
 * in hex.  The secret file holds one key a line, 64 hex digits, newest
 * first, and only its owner may read it (mode 0600, as a DKIM key):
 * rotation puts a new line on top and keeps the previous one for
 * the token lifetime, so links in mail already sent keep working.
 *
 * Tokens are made per recipient, by the runner's delivery threads at
 * once: the newest key is keyed into an HMAC context once per message
 * (unsub_maker_new) and that context copied for each token, rather than
 * the algorithm fetched and the key hashed each time.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "io.h"
#include "unsub_token.h"

/* The newest key, keyed into an HMAC context once (unsub_maker_new) and
 * copied for each token. */
struct unsub_maker {
	EVP_MAC_CTX *keyed;
};

/* unsub_hex_decode - 2n hex digits into n bytes; 0 ok, -1 not hex */
static int
unsub_hex_decode(const char *hex, unsigned char *out, size_t n)
{
	size_t i;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)hex[2 * i]) ||
		    !isxdigit((unsigned char)hex[2 * i + 1]))
			return -1;
		hi = OPENSSL_hexchar2int((unsigned char)hex[2 * i]);
		lo = OPENSSL_hexchar2int((unsigned char)hex[2 * i + 1]);
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* unsub_secret_load - the keys of the secret file; 0 ok, -1 with err */
int
unsub_secret_load(
    struct unsub_secret *us, const char *path, char *err, size_t errlen)
{
	char line[256];
	size_t len, lineno = 0;
	struct stat sb;
	FILE *fp;
	int fd;

	us->n = 0;
	/* As a DKIM key: a secret others can read is no secret. */
	if ((fd = io_open_private(path, UNSUB_SECRET_MAX, &sb)) == -2) {
		snprintf(err, errlen,
		    "secret %s must be a regular file of mode 0600 (or 0400) "
		    "and under %d bytes",
		    path, UNSUB_SECRET_MAX);
		return -1;
	}
	if (fd == -1 || (fp = fdopen(fd, "r")) == NULL) {
		snprintf(err, errlen, "cannot read secret %s: %s", path,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		len = strcspn(line, "\r\n");
		line[len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (us->n == UNSUB_KEYS_MAX)
			break;
		if (len != 2 * UNSUB_KEY_LEN ||
		    unsub_hex_decode(line, us->key[us->n], UNSUB_KEY_LEN) ==
			-1) {
			snprintf(err, errlen, "%s:%zu: a key is %d hex digits",
			    path, lineno, 2 * UNSUB_KEY_LEN);
			fclose(fp);
			return -1;
		}
		us->n++;
	}
	fclose(fp);
	if (us->n == 0) {
		snprintf(err, errlen, "secret %s holds no key", path);
		return -1;
	}
	return 0;
}

/* unsub_mac_key - an HMAC-SHA-256 context keyed with key, ready for a
 * message: unsub_mac copies it for each token, so the algorithm is
 * fetched and the key's pads hashed once; NULL out of memory */
static EVP_MAC_CTX *
unsub_mac_key(const unsigned char *key)
{
	OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(
				   OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
	    OSSL_PARAM_construct_end()};
	EVP_MAC_CTX *ctx = NULL;
	EVP_MAC *mac;

	if ((mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL)
		return NULL;
	if ((ctx = EVP_MAC_CTX_new(mac)) != NULL &&
	    EVP_MAC_init(ctx, key, UNSUB_KEY_LEN, params) != 1) {
		EVP_MAC_CTX_free(ctx);
		ctx = NULL;
	}
	EVP_MAC_free(mac); /* ctx holds its own reference */
	return ctx;
}

/* unsub_mac - the MAC of one token under a keyed context, which is only
 * read (EVP_MAC_CTX_dup copies its state and takes references to the
 * algorithm with atomic counts), so threads may share one; 0 ok, -1 too
 * long or out of memory */
static int
unsub_mac(const EVP_MAC_CTX *keyed, const char *list, const char *domain,
    const char *addr, long long issued, unsigned char mac[UNSUB_MAC_LEN])
{
	unsigned char full[EVP_MAX_MD_SIZE];
	char msg[1024];
	size_t outlen = 0;
	EVP_MAC_CTX *ctx;
	int n, r = -1;

	n = snprintf(msg, sizeof(msg), "mjq-unsub-1\n%s\n%s\n%s\n%lld\n", list,
	    domain, addr, issued);
	if (n < 0 || (size_t)n >= sizeof(msg) ||
	    (ctx = EVP_MAC_CTX_dup(keyed)) == NULL)
		return -1;
	if (EVP_MAC_update(ctx, (const unsigned char *)msg, (size_t)n) == 1 &&
	    EVP_MAC_final(ctx, full, &outlen, sizeof(full)) == 1 &&
	    outlen >= UNSUB_MAC_LEN) {
		memcpy(mac, full, UNSUB_MAC_LEN);
		r = 0;
	}
	EVP_MAC_CTX_free(ctx);
	return r;
}

/* unsub_maker_new - what makes tokens with us's newest key; NULL out of
 * memory (or no key) */
struct unsub_maker *
unsub_maker_new(const struct unsub_secret *us)
{
	struct unsub_maker *mk;

	if (us->n == 0 || (mk = calloc(1, sizeof(*mk))) == NULL)
		return NULL;
	if ((mk->keyed = unsub_mac_key(us->key[0])) == NULL) {
		free(mk);
		return NULL;
	}
	return mk;
}

/* unsub_maker_free - let it go (OpenSSL wipes the key it holds) */
void
unsub_maker_free(struct unsub_maker *mk)
{
	if (mk == NULL)
		return;
	EVP_MAC_CTX_free(mk->keyed);
	free(mk);
}

/* unsub_token_make - the hex MAC a link for addr carries */
int
unsub_token_make(const struct unsub_maker *mk, const char *list,
    const char *domain, const char *addr, long long issued,
    char out[UNSUB_MAC_HEX + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char mac[UNSUB_MAC_LEN];
	size_t i;

	if (unsub_mac(mk->keyed, list, domain, addr, issued, mac) == -1)
		return -1;
	for (i = 0; i < UNSUB_MAC_LEN; i++) {
		out[2 * i] = hex[mac[i] >> 4];
		out[2 * i + 1] = hex[mac[i] & 15];
	}
	out[UNSUB_MAC_HEX] = '\0';
	return 0;
}

/* A link being written: its buffer and size, and its length so far,
 * which goes on counting past the size (then the link is too long). */
struct unsub_out {
	char *p;
	size_t size, len;
};

/* unsub_out_put - n bytes of s at the end of o */
static void
unsub_out_put(struct unsub_out *o, const char *s, size_t n)
{
	if (o->len + n < o->size)
		memcpy(o->p + o->len, s, n);
	o->len += n;
}

/* unsub_link_pct - s percent-encoded (all but RFC 3986's unreserved
 * characters) at the end of o */
static void
unsub_link_pct(struct unsub_out *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	char pct[3] = {'%'};

	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' ||
		    *p == '~') {
			unsub_out_put(o, (const char *)p, 1);
		} else {
			pct[1] = hex[*p >> 4];
			pct[2] = hex[*p & 15];
			unsub_out_put(o, pct, 3);
		}
}

/* unsub_link_make - the one-click link for addr: base, then the query
 * that mj_unsubscribe reads (l, a, t, s); 0 ok, -1 too long.  Written
 * straight into out: made per copy by the delivery threads, it takes no
 * memory of the heap they share. */
int
unsub_link_make(const struct unsub_maker *mk, const char *base,
    const char *list, const char *domain, const char *addr, long long issued,
    char *out, size_t outlen)
{
	char mac[UNSUB_MAC_HEX + 1], tail[64];
	struct unsub_out o = {out, outlen, 0};
	int n;

	if (unsub_token_make(mk, list, domain, addr, issued, mac) == -1)
		return -1;
	unsub_out_put(&o, base, strlen(base));
	unsub_out_put(&o, strchr(base, '?') != NULL ? "&l=" : "?l=", 3);
	unsub_link_pct(&o, list);
	unsub_out_put(&o, "%40", 3);
	unsub_link_pct(&o, domain);
	unsub_out_put(&o, "&a=", 3);
	unsub_link_pct(&o, addr);
	n = snprintf(tail, sizeof(tail), "&t=%lld&s=%s", issued, mac);
	if (n < 0 || (size_t)n >= sizeof(tail))
		return -1;
	unsub_out_put(&o, tail, (size_t)n);
	if (o.len >= outlen)
		return -1;
	out[o.len] = '\0';
	return 0;
}

/* unsub_token_check - is mac a genuine token for list, addr and issued,
 * made by any key of the secret, and still young enough */
enum unsub_verdict
unsub_token_check(const struct unsub_secret *us, const char *list,
    const char *domain, const char *addr, long long issued, const char *mac,
    time_t now, long long lifetime)
{
	unsigned char want[UNSUB_MAC_LEN], got[UNSUB_MAC_LEN];
	EVP_MAC_CTX *keyed;
	size_t i;
	int genuine = 0;

	if (strlen(mac) != UNSUB_MAC_HEX ||
	    unsub_hex_decode(mac, got, UNSUB_MAC_LEN) == -1)
		return UNSUB_FORGED;
	for (i = 0; i < us->n && !genuine; i++) {
		keyed = unsub_mac_key(us->key[i]);
		genuine =
		    keyed != NULL &&
		    unsub_mac(keyed, list, domain, addr, issued, want) == 0 &&
		    CRYPTO_memcmp(want, got, UNSUB_MAC_LEN) == 0;
		EVP_MAC_CTX_free(keyed);
	}
	if (!genuine)
		return UNSUB_FORGED;
	/* A token from the future was made with a clock far off: refuse it
	 * as a forgery would be, it cannot be honoured by age. */
	if (issued > (long long)now + 86400)
		return UNSUB_FORGED;
	if ((long long)now - issued > lifetime)
		return UNSUB_EXPIRED;
	return UNSUB_OK;
}
