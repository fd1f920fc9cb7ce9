/*
 * dkim_sign.c - the DKIM-Signature header fields of a message text, made
 * with libopendkim (OpenSSL underneath): one rsa-sha256 signature per
 * configured selector (two during a key rotation), and an ed25519-sha256
 * one when a selector for it is set (RFC 8463 dual signing);
 * relaxed/relaxed, the whole body, From oversigned.
 *
 * The text is signed as it goes out: the SMTP client turns every line end
 * into CRLF, and so does libopendkim here (DKIM_LIBFLAGS_FIXCRLF), so a
 * spool file with LF line ends verifies at the receiver.  Keys are read
 * from the domain's DKIM directory at each signing: a rotated key takes
 * effect with the next message, without a restart.
 */
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opendkim/dkim.h>

#include "dkim_sign.h"

#define DKIM_KEY_MAX 16384 /* a PEM key, RSA 4096 fits easily */

struct dkim_signer {
	DKIM_LIB *lib;
};

/* Signed when present; From once more than present, so no From can be
 * added in transit (oversigning). */
static const char *dkim_sign_headers[] = {"from", "sender", "reply-to",
    "to", "cc", "subject", "date", "message-id", "in-reply-to",
    "references", "list-id", "list-post", "list-help", "list-unsubscribe",
    "list-unsubscribe-post", "list-subscribe", "list-owner", "list-archive",
    "mime-version", "content-type", "content-transfer-encoding",
    "content-id", "content-description", "content-disposition", NULL};
static const char *dkim_sign_oversign[] = {"from", NULL};

/* dkim_sign_open - the library, set up once per runner */
struct dkim_signer *
dkim_sign_open(char *err, size_t errlen)
{
	struct dkim_signer *ds;
	unsigned int flags = DKIM_LIBFLAGS_FIXCRLF;

	if ((ds = calloc(1, sizeof(*ds))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((ds->lib = dkim_init(NULL, NULL)) == NULL) {
		snprintf(err, errlen, "cannot initialize libopendkim");
		free(ds);
		return NULL;
	}
	if (dkim_options(ds->lib, DKIM_OP_SETOPT, DKIM_OPTS_FLAGS, &flags,
		sizeof(flags)) != DKIM_STAT_OK ||
	    dkim_options(ds->lib, DKIM_OP_SETOPT, DKIM_OPTS_SIGNHDRS,
		dkim_sign_headers, sizeof(char **)) != DKIM_STAT_OK ||
	    dkim_options(ds->lib, DKIM_OP_SETOPT, DKIM_OPTS_OVERSIGNHDRS,
		dkim_sign_oversign, sizeof(char **)) != DKIM_STAT_OK) {
		snprintf(err, errlen, "cannot set libopendkim's options");
		dkim_sign_close(ds);
		return NULL;
	}
	return ds;
}

/* dkim_sign_close - release the library */
void
dkim_sign_close(struct dkim_signer *ds)
{
	if (ds == NULL)
		return;
	dkim_close(ds->lib);
	free(ds);
}

/* dkim_sign_key - the PEM key of selector, NUL-terminated, from a
 * regular file only the mjq user can read */
static int
dkim_sign_key(const struct dkim_conf *dc, const char *selector, char *key,
    size_t keylen, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat sb;
	ssize_t n;
	int fd;

	if (dkim_conf_key_path(path, sizeof(path), dc, selector) == -1) {
		snprintf(err, errlen, "DKIM key path too long");
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cannot read DKIM key %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (sb.st_mode & 077) != 0 || sb.st_size <= 0 ||
	    sb.st_size >= (off_t)keylen) {
		snprintf(err, errlen,
		    "DKIM key %s must be a regular file of mode 0600 (or "
		    "0400) and under %zu bytes",
		    path, keylen);
		close(fd);
		return -1;
	}
	if ((n = read(fd, key, keylen - 1)) != sb.st_size) {
		snprintf(err, errlen, "cannot read DKIM key %s: %s", path,
		    n == -1 ? strerror(errno) : "short read");
		close(fd);
		return -1;
	}
	key[n] = '\0';
	close(fd);
	return 0;
}

/* dkim_sign_one - one DKIM-Signature field of text, appended to fp with
 * the line end eol */
static int
dkim_sign_one(struct dkim_signer *ds, const struct dkim_conf *dc,
    const char *domain, const char *selector, dkim_alg_t alg,
    const char *text, size_t len, const char *eol, FILE *fp, char *err,
    size_t errlen)
{
	static const char name[] = "DKIM-Signature: ";
	char key[DKIM_KEY_MAX];
	unsigned char *hdr = NULL;
	size_t hlen = 0, i;
	DKIM_STAT st;
	DKIM *d;

	if (dkim_sign_key(dc, selector, key, sizeof(key), err, errlen) == -1)
		return -1;
	d = dkim_sign(ds->lib, (const unsigned char *)"mjq", NULL,
	    (dkim_sigkey_t)key, (const unsigned char *)selector,
	    (const unsigned char *)domain, DKIM_CANON_RELAXED,
	    DKIM_CANON_RELAXED, alg, -1, &st);
	explicit_bzero(key, sizeof(key));
	if (d == NULL) {
		snprintf(err, errlen, "DKIM key %s/%s.key: %s", dc->dir,
		    selector, dkim_getresultstr(st));
		return -1;
	}
	if ((st = dkim_chunk(d, (unsigned char *)text, len)) != DKIM_STAT_OK ||
	    (st = dkim_chunk(d, NULL, 0)) != DKIM_STAT_OK ||
	    (st = dkim_eom(d, NULL)) != DKIM_STAT_OK ||
	    (st = dkim_getsighdr_d(d, sizeof(name) - 1, &hdr, &hlen)) !=
		DKIM_STAT_OK) {
		snprintf(err, errlen, "DKIM signing with %s/%s.key: %s (%s)",
		    dc->dir, selector, dkim_getresultstr(st),
		    dkim_geterror(d) != NULL ? dkim_geterror(d) : "no detail");
		dkim_free(d);
		return -1;
	}
	/* The field comes folded with bare LF (or CRLF): one style, ours. */
	fputs(name, fp);
	for (i = 0; i < hlen; i++) {
		if (hdr[i] == '\r')
			continue;
		if (hdr[i] == '\n')
			fputs(eol, fp);
		else
			fputc(hdr[i], fp);
	}
	fputs(eol, fp);
	dkim_free(d);
	return 0;
}

/* dkim_sign_text - the DKIM-Signature fields for text (its header and
 * body as delivered) in *sig (malloc'd; empty when the domain signs
 * nothing); -1 with err when a key is missing or unusable: the caller
 * defers the message rather than send it unsigned */
int
dkim_sign_text(struct dkim_signer *ds, const struct dkim_conf *dc,
    const char *domain, const char *text, size_t len, char **sig,
    size_t *siglen, char *err, size_t errlen)
{
	const char *nl = memchr(text, '\n', len);
	const char *eol = nl != NULL && nl > text && nl[-1] == '\r' ? "\r\n"
								     : "\n";
	FILE *fp;
	int i, r = 0;

	*sig = NULL;
	*siglen = 0;
	if ((fp = open_memstream(sig, siglen)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; dc->sign && r == 0 && i < dc->nrsa; i++)
		r = dkim_sign_one(ds, dc, domain, dc->rsa[i],
		    DKIM_SIGN_RSASHA256, text, len, eol, fp, err, errlen);
	if (dc->sign && r == 0 && dc->ed25519_selector[0] != '\0')
		r = dkim_sign_one(ds, dc, domain, dc->ed25519_selector,
		    DKIM_SIGN_ED25519SHA256, text, len, eol, fp, err, errlen);
	if (fclose(fp) == EOF && r == 0) {
		snprintf(err, errlen, "out of memory");
		r = -1;
	}
	if (r == -1) {
		free(*sig);
		*sig = NULL;
		*siglen = 0;
	}
	return r;
}
