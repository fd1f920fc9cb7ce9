/*
 * dkim_copy.c - the DKIM-Signature fields of a copy of a prepared text
 * (dkim_prep.h), with header fields of the copy's own on top, or none
 * (the text signed whole): which fields are signed (h=, From oversigned),
 * the instances a verifier takes for them (RFC 6376 5.4.2), the field
 * with its t= and its b=.
 *
 * A one-click post is signed once per recipient, from up to 100
 * delivery threads at once, so what does not change from copy to copy
 * is done once per text, by dkim_sign_prepare: the text's own fields
 * found, chosen and canonicalized (dkim_copy_fields), the keys' signing
 * contexts set up, SHA-256 fetched; each thread keeps its own copies
 * of the RSA keys (dkim_tkey.c).  A copy then costs its own fields'
 * canonical forms, one allocation for its work and one for its result,
 * a SHA-256 (and for ed25519 the signing context copied), beside the
 * private-key operation itself (t/bench/copysign.sh counts the rest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/evp.h>

#include "dkim_canon.h"
#include "dkim_copy.h"
#include "dkim_ossl.h"
#include "dkim_prep.h"

/* Signed when present; From once more than present, so no From can be
 * added in transit (oversigning). */
static const char *const dkim_copy_headers[] = {"from", "sender", "reply-to",
    "to", "cc", "subject", "date", "message-id", "in-reply-to", "references",
    "list-id", "list-post", "list-help", "list-unsubscribe",
    "list-unsubscribe-post", "list-subscribe", "list-owner", "list-archive",
    "archived-at", "mime-version", "content-type", "content-transfer-encoding",
    "content-id", "content-description", "content-disposition"};
#define DKIM_NSIGN (sizeof(dkim_copy_headers) / sizeof(dkim_copy_headers[0]))

/* A signed field of a copy, in message order, and its canonical form
 * (the prepared text's, or made for this copy). */
struct dkim_copy_field {
	const char *name;
	size_t namelen;
	const char *canon;
	size_t clen;
};

/* dkim_copy_is_signed - a field name (length n) is in the signed set */
static int
dkim_copy_is_signed(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < DKIM_NSIGN; i++)
		if (strlen(dkim_copy_headers[i]) == n &&
		    strncasecmp(dkim_copy_headers[i], name, n) == 0)
			return 1;
	return 0;
}

/* dkim_copy_b64 - base64 of n bytes (at most DKIM_SIG_MAX) at p into
 * out, folded when asked: eol and a tab and a blank every 64
 * characters; the length written */
size_t
dkim_copy_b64(
    char *out, const unsigned char *p, size_t n, const char *eol, int fold)
{
	unsigned char b64[DKIM_B64_MAX(DKIM_SIG_MAX) + 1];
	size_t len, i, o = 0, el = strlen(eol), chunk;

	if (n > DKIM_SIG_MAX)
		return 0;
	len = (size_t)EVP_EncodeBlock(b64, p, (int)n);
	for (i = 0; i < len; i += chunk) {
		if (fold && i > 0) {
			memcpy(out + o, eol, el);
			memcpy(out + o + el, "\t ", 2);
			o += el + 2;
		}
		chunk = fold && len - i > 64 ? 64 : len - i;
		memcpy(out + o, b64 + i, chunk);
		o += chunk;
	}
	return o;
}

/* dkim_copy_fields - the text's own header fields, looked at once for
 * all its copies: which are signed, and their canonical forms; -1 out
 * of memory */
int
dkim_copy_fields(struct dkim_prep *p)
{
	struct dkim_field *f;
	const char *body;
	size_t i, n, clen = 0;

	/* Counted first, with room for none: continuation lines count
	 * as fields then, so this is the most there can be. */
	n = p->nfall = dkim_canon_fields(p->hdr, p->hdrlen, NULL, 0, &body);
	if (n > DKIM_FIELDS_MAX)
		n = DKIM_FIELDS_MAX;
	if ((f = reallocarray(NULL, n + 1, sizeof(*f))) == NULL ||
	    (p->f = reallocarray(NULL, n + 1, sizeof(*p->f))) == NULL ||
	    (p->canon = malloc(p->hdrlen + 1)) == NULL) {
		free(f);
		return -1;
	}
	if ((i = dkim_canon_fields(p->hdr, p->hdrlen, f, n, &body)) < n)
		n = i;
	for (i = 0; i < n; i++) {
		p->f[i].off = (size_t)(f[i].p - p->hdr);
		p->f[i].len = f[i].len;
		p->f[i].sign = dkim_copy_is_signed(f[i].p, f[i].namelen);
		p->f[i].coff = clen;
		/* a canonical form is no longer than its field */
		p->f[i].clen = p->f[i].sign ? dkim_canon_header(f[i].p,
						  f[i].len, p->canon + clen)
					    : 0;
		clen += p->f[i].clen;
	}
	p->nf = n;
	free(f);
	return 0;
}

/* dkim_copy_prepared - the prepared text's field that the copy's parse
 * found at f (NULL when it is not one of them: the copy's own, or the
 * first of the text's folded into the copy's last); *j walks p's
 * fields in order, as the parse does */
static const struct dkim_prep_field *
dkim_copy_prepared(const struct dkim_prep *p, const struct dkim_field *f,
    const char *shared, size_t *j)
{
	size_t off;

	if (f->p < shared)
		return NULL;
	off = (size_t)(f->p - shared);
	while (*j < p->nf && p->f[*j].off < off)
		(*j)++;
	if (*j < p->nf && p->f[*j].off == off && p->f[*j].len == f->len)
		return &p->f[*j];
	return NULL;
}

/* dkim_copy_signed - the signed fields among the copy's fields f (nf of
 * them, parsed from all, where the prepared text starts at shared) into
 * c, with their canonical forms: the prepared text's, or made into own;
 * their number */
static size_t
dkim_copy_signed(const struct dkim_prep *p, const struct dkim_field *f,
    size_t nf, const char *shared, struct dkim_copy_field *c, char *own)
{
	const struct dkim_prep_field *pf;
	size_t k, j = 0, ns = 0;

	for (k = 0; k < nf; k++) {
		pf = dkim_copy_prepared(p, &f[k], shared, &j);
		if (pf != NULL ? !pf->sign
			       : !dkim_copy_is_signed(f[k].p, f[k].namelen))
			continue;
		c[ns].name = f[k].p;
		c[ns].namelen = f[k].namelen;
		if (pf != NULL) {
			c[ns].canon = p->canon + pf->coff;
			c[ns].clen = pf->clen;
		} else {
			c[ns].canon = own;
			c[ns].clen = dkim_canon_header(f[k].p, f[k].len, own);
			own += c[ns].clen;
		}
		ns++;
	}
	return ns;
}

/* dkim_copy_hlist - h= (the signed fields' names in message order, From
 * once more) into hlist, and the canonical fields as a verifier selects
 * them (RFC 6376 5.4.2: for each name, the last instance not yet used),
 * each ended by CRLF, into hdr; used holds ns flags.  h='s length; the
 * fields' in *hlen */
static size_t
dkim_copy_hlist(const struct dkim_copy_field *c, size_t ns, unsigned char *used,
    char *hlist, char *hdr, size_t *hlen)
{
	size_t i, j, hl = 0, dl = 0;

	memset(used, 0, ns);
	for (i = 0; i < ns; i++) {
		if (i > 0)
			hlist[hl++] = ':';
		memcpy(hlist + hl, c[i].name, c[i].namelen);
		hl += c[i].namelen;
		/* the instance a verifier takes for this h= entry */
		for (j = ns; j-- > 0;) {
			if (used[j] || c[j].namelen != c[i].namelen ||
			    strncasecmp(c[j].name, c[i].name, c[i].namelen) !=
				0)
				continue;
			used[j] = 1;
			memcpy(hdr + dl, c[j].canon, c[j].clen);
			memcpy(hdr + dl + c[j].clen, "\r\n", 2);
			dl += c[j].clen + 2;
			break;
		}
	}
	memcpy(hlist + hl, ns > 0 ? ":from" : "from", ns > 0 ? 5 : 4);
	*hlen = dl;
	return hl + (ns > 0 ? 5 : 4);
}

/* dkim_copy_put - n bytes of s at out + *o, *o moved past them */
static void
dkim_copy_put(char *out, size_t *o, const char *s, size_t n)
{
	memcpy(out + *o, s, n);
	*o += n;
}

/* dkim_copy_field - signature i's field with an empty b=, folded as it
 * will be sent, into out (room for its tags, h=, bh= and 64 bytes
 * more); its length */
static size_t
dkim_copy_field(const struct dkim_prep *p, int i, const char *hlist,
    size_t hllen, char *out)
{
	size_t o = 0, el = strlen(p->eol);
	char t[32];
	int tl;

	tl = snprintf(t, sizeof(t), "t=%lld;", (long long)time(NULL));
	dkim_copy_put(out, &o, p->sig[i].tags, strlen(p->sig[i].tags));
	dkim_copy_put(out, &o, t, (size_t)tl);
	dkim_copy_put(out, &o, p->eol, el);
	dkim_copy_put(out, &o, "\th=", 3);
	dkim_copy_put(out, &o, hlist, hllen);
	dkim_copy_put(out, &o, ";", 1);
	dkim_copy_put(out, &o, p->eol, el);
	dkim_copy_put(out, &o, "\tbh=", 4);
	dkim_copy_put(out, &o, p->bh, strlen(p->bh));
	dkim_copy_put(out, &o, ";", 1);
	dkim_copy_put(out, &o, p->eol, el);
	dkim_copy_put(out, &o, "\tb=", 3);
	return o;
}

/* dkim_copy_signature - signature i of p over len bytes of data into
 * sig (DKIM_SIG_MAX bytes), its length in *slen: SHA-256 with the
 * prepared MD, then the key with a copy of its prepared context */
int
dkim_copy_signature(const struct dkim_prep *p, int i, const char *data,
    size_t len, unsigned char *sig, size_t *slen)
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int mdlen;
	EVP_PKEY_CTX *ctx;
	EVP_MD_CTX *md;
	int ok;

	*slen = DKIM_SIG_MAX;
	if (EVP_Digest(data, len, digest, &mdlen, p->sha256, NULL) != 1)
		return -1;
	if (!p->sig[i].ed) {
		/* rsa-sha256: PKCS#1 v1.5 over the digest, as
		 * EVP_DigestSign with SHA-256 makes it, with this thread's
		 * own copy of the key */
		if ((ctx = dkim_tkey_ctx(p, i)) == NULL)
			return -1;
		ok = EVP_PKEY_sign(ctx, sig, slen, digest, mdlen) == 1;
		return ok ? 0 : -1;
	}
	/* RFC 8463: Ed25519 over the SHA-256 of the data. */
	if ((md = EVP_MD_CTX_new()) == NULL)
		return -1;
	ok = EVP_MD_CTX_copy_ex(md, p->sig[i].edmd) == 1 &&
	     EVP_DigestSign(md, sig, slen, digest, mdlen) == 1;
	EVP_MD_CTX_free(md);
	return ok ? 0 : -1;
}

/* dkim_copy_sign - the DKIM-Signature fields of a copy of p's text with
 * head (header fields of this copy's own, or NULL) on top, in *sig
 * (malloc'd); safe to call from several threads at once */
int
dkim_copy_sign(const struct dkim_prep *p, const char *head, size_t headlen,
    char **sig, size_t *siglen, char *err, size_t errlen)
{
	unsigned char s[DKIM_SIG_MAX], *used;
	size_t n = headlen + p->hdrlen, cap, nf, ns, hlmax, fmax, dmax, b64;
	size_t hllen, hlen, flen, slen, olen = 0, size;
	struct dkim_copy_field *c;
	struct dkim_field *f;
	char *work, *all, *own, *hlist, *data, *field, *out;
	const char *body;
	int i;

	*sig = NULL;
	*siglen = 0;
	/* The parse of head and text together finds no more fields than
	 * the two apart, counted with room for none (continuation lines
	 * counted as fields then).  Past DKIM_FIELDS_MAX fields nothing
	 * more is signed (a verifier may then fail the signature; the mail
	 * still goes). */
	cap = (headlen > 0 ? dkim_canon_fields(head, headlen, NULL, 0, &body)
			   : 0) +
	      p->nfall;
	if (cap > DKIM_FIELDS_MAX)
		cap = DKIM_FIELDS_MAX;
	hlmax = n + cap + sizeof(":from");
	fmax = p->tagsmax + hlmax + sizeof(p->bh) + 64; /* t=, eol, tags */
	dmax = n + 2 * cap + fmax;
	b64 = DKIM_B64_MAX(p->sigmax);
	size = (cap + 1) * (sizeof(*f) + sizeof(*c) + 1) + 2 * n + hlmax +
	       dmax + fmax;
	if ((work = malloc(size)) == NULL ||
	    (out = malloc((size_t)p->nsig * (fmax + b64 + (b64 / 64 + 1) * 4) +
			  1)) == NULL) {
		free(work);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	f = (struct dkim_field *)(void *)work;
	c = (struct dkim_copy_field *)(void *)(f + cap + 1);
	used = (unsigned char *)(c + cap + 1);
	all = (char *)used + cap + 1;
	own = all + n;
	hlist = own + n;
	data = hlist + hlmax;
	field = data + dmax;

	if (headlen > 0)
		memcpy(all, head, headlen);
	memcpy(all + headlen, p->hdr, p->hdrlen);
	if ((nf = dkim_canon_fields(all, n, f, cap, &body)) > cap)
		nf = cap;
	ns = dkim_copy_signed(p, f, nf, all + headlen, c, own);
	hllen = dkim_copy_hlist(c, ns, used, hlist, data, &hlen);
	for (i = 0; i < p->nsig; i++) {
		flen = dkim_copy_field(p, i, hlist, hllen, field);
		/* What is signed: the fields, then this one relaxed, no
		 * line end. */
		if (dkim_copy_signature(p, i, data,
			hlen + dkim_canon_header(field, flen, data + hlen), s,
			&slen) == -1) {
			snprintf(err, errlen,
			    "DKIM signing with selector %s: %s", p->sig[i].sel,
			    dkim_ossl());
			goto fail;
		}
		memcpy(out + olen, field, flen);
		olen += flen;
		olen += dkim_copy_b64(out + olen, s, slen, p->eol, 1);
		memcpy(out + olen, p->eol, strlen(p->eol));
		olen += strlen(p->eol);
	}
	out[olen] = '\0';
	free(work);
	*sig = out;
	*siglen = olen;
	return 0;
fail:
	free(work);
	free(out);
	return -1;
}
