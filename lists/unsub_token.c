/*
 * unsub_token.c - make and check one-click unsubscribe tokens.
 *
 * The MAC is HMAC-SHA-256 (OpenSSL's EVP_Q_mac) over "mjq-unsub-1", the
 * list, its domain, the address and the issue time, each ended by a
 * newline (none of them can hold one), truncated to 128 bits and written
 * in hex.  The secret file holds one key a line, 64 hex digits, newest
 * first: rotation puts a new line on top and keeps the previous one for
 * the token lifetime, so links in mail already sent keep working.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "unsub_token.h"

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
	FILE *fp;

	us->n = 0;
	if ((fp = fopen(path, "re")) == NULL) {
		snprintf(err, errlen, "cannot read secret %s: %s", path,
		    strerror(errno));
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
			snprintf(err, errlen,
			    "%s:%zu: a key is %d hex digits", path, lineno,
			    2 * UNSUB_KEY_LEN);
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

/* unsub_mac - the MAC of one token under one key; 0 ok, -1 too long */
static int
unsub_mac(const unsigned char *key, const char *list, const char *domain,
    const char *addr, long long issued, unsigned char mac[UNSUB_MAC_LEN])
{
	unsigned char full[EVP_MAX_MD_SIZE];
	char msg[1024];
	size_t outlen = 0;
	int n;

	n = snprintf(msg, sizeof(msg), "mjq-unsub-1\n%s\n%s\n%s\n%lld\n", list,
	    domain, addr, issued);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -1;
	if (EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, UNSUB_KEY_LEN,
		(const unsigned char *)msg, (size_t)n, full, sizeof(full),
		&outlen) == NULL ||
	    outlen < UNSUB_MAC_LEN)
		return -1;
	memcpy(mac, full, UNSUB_MAC_LEN);
	return 0;
}

/* unsub_token_make - the hex MAC a link for addr carries */
int
unsub_token_make(const struct unsub_secret *us, const char *list,
    const char *domain, const char *addr, long long issued,
    char out[UNSUB_MAC_HEX + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char mac[UNSUB_MAC_LEN];
	size_t i;

	if (us->n == 0 ||
	    unsub_mac(us->key[0], list, domain, addr, issued, mac) == -1)
		return -1;
	for (i = 0; i < UNSUB_MAC_LEN; i++) {
		out[2 * i] = hex[mac[i] >> 4];
		out[2 * i + 1] = hex[mac[i] & 15];
	}
	out[UNSUB_MAC_HEX] = '\0';
	return 0;
}

/* unsub_link_pct - s percent-encoded (all but RFC 3986's unreserved
 * characters) into fp */
static void
unsub_link_pct(FILE *fp, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' ||
		    *p == '~')
			fputc(*p, fp);
		else
			fprintf(fp, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
}

/* unsub_link_make - the one-click link for addr: base, then the query
 * that mj_unsubscribe reads (l, a, t, s); 0 ok, -1 too long */
int
unsub_link_make(const struct unsub_secret *us, const char *base,
    const char *list, const char *domain, const char *addr, long long issued,
    char *out, size_t outlen)
{
	char mac[UNSUB_MAC_HEX + 1];
	FILE *fp;
	int bad;

	if (unsub_token_make(us, list, domain, addr, issued, mac) == -1 ||
	    (fp = fmemopen(out, outlen, "w")) == NULL)
		return -1;
	fprintf(fp, "%s%cl=", base, strchr(base, '?') != NULL ? '&' : '?');
	unsub_link_pct(fp, list);
	fputs("%40", fp);
	unsub_link_pct(fp, domain);
	fputs("&a=", fp);
	unsub_link_pct(fp, addr);
	fprintf(fp, "&t=%lld&s=%s", issued, mac);
	bad = ferror(fp) || ftell(fp) < 0 || (size_t)ftell(fp) >= outlen;
	if (fclose(fp) == EOF || bad)
		return -1;
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
	size_t i;
	int genuine = 0;

	if (strlen(mac) != UNSUB_MAC_HEX ||
	    unsub_hex_decode(mac, got, UNSUB_MAC_LEN) == -1)
		return UNSUB_FORGED;
	for (i = 0; i < us->n && !genuine; i++)
		genuine = unsub_mac(us->key[i], list, domain, addr, issued,
			      want) == 0 &&
		    CRYPTO_memcmp(want, got, UNSUB_MAC_LEN) == 0;
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
