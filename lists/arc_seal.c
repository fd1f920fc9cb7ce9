/*
 * arc_seal.c - the ARC set (RFC 8617 4.1, 5.1) a list adds to a post's
 * text as delivered: ARC-Authentication-Results (the MTA's results when
 * trusted, arc_ar.c), ARC-Message-Signature and ARC-Seal, instance i,
 * rsa-sha256 with the domain's first RSA selector, relaxed/relaxed.
 *
 * Made once per text, from its DKIM preparation (dkim_prep.h): the same
 * body hash, the same key and thread copy of it, the same relaxed
 * canonicalization (dkim_canon.c).  The AMS signs the fields DKIM signs
 * and the text's DKIM-Signature fields (RFC 8617 4.1.2: the set is added
 * above them), but not List-Unsubscribe and List-Unsubscribe-Post: the
 * copies of a one-click list carry their own, and share this one seal.
 * The AS signs the sets below it and its own, in instance order; with
 * cv=fail only its own (RFC 8617 5.1.2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "arc.h"
#include "dkim_canon.h"
#include "dkim_copy.h"
#include "dkim_ossl.h"
#include "dkim_prep.h"
#include "dkim_sign.h"

/* Signed by the AMS when present; From once more than present. */
static const char *const arc_seal_headers[] = {"from", "sender", "reply-to",
    "to", "cc", "subject", "date", "message-id", "in-reply-to", "references",
    "list-id", "list-post", "list-help", "list-subscribe", "list-owner",
    "list-archive", "mime-version", "content-type", "content-transfer-encoding",
    "content-id", "content-description", "content-disposition",
    "dkim-signature"};
#define ARC_NSIGN (sizeof(arc_seal_headers) / sizeof(arc_seal_headers[0]))

/* Where a seal is made: the fields parsed, the data signed. */
struct arc_seal_work {
	struct dkim_field *f;
	size_t nf;
	char *data; /* what is hashed */
	size_t dlen;
	unsigned char *used;
};

/* arc_seal_is_signed - the field name (n bytes) is in the AMS's set */
static int
arc_seal_is_signed(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < ARC_NSIGN; i++)
		if (strlen(arc_seal_headers[i]) == n &&
		    strncasecmp(arc_seal_headers[i], name, n) == 0)
			return 1;
	return 0;
}

/* arc_seal_add - field f canonicalized onto w's data, with CRLF */
static void
arc_seal_add(struct arc_seal_work *w, const char *p, size_t len, int crlf)
{
	w->dlen += dkim_canon_header(p, len, w->data + w->dlen);
	if (crlf) {
		memcpy(w->data + w->dlen, "\r\n", 2);
		w->dlen += 2;
	}
}

/* arc_seal_hlist - h= of the AMS into out, and its fields as a verifier
 * selects them (for each name, the last instance not yet used) onto
 * w's data */
static void
arc_seal_hlist(struct arc_seal_work *w, FILE *out)
{
	size_t i, j;
	int first = 1;

	memset(w->used, 0, w->nf);
	for (i = 0; i < w->nf; i++) {
		if (!arc_seal_is_signed(w->f[i].p, w->f[i].namelen))
			continue;
		fprintf(out, "%s%.*s", first ? "" : ":", (int)w->f[i].namelen,
		    w->f[i].p);
		first = 0;
		for (j = w->nf; j-- > 0;) {
			if (w->used[j] || w->f[j].namelen != w->f[i].namelen ||
			    strncasecmp(
				w->f[j].p, w->f[i].p, w->f[i].namelen) != 0)
				continue;
			w->used[j] = 1;
			arc_seal_add(w, w->f[j].p, w->f[j].len, 1);
			break;
		}
	}
	fputs(first ? "from" : ":from", out);
}

/* arc_seal_sign - signature key of p over w's data, base64 and folded,
 * onto out */
static int
arc_seal_sign(
    const struct dkim_prep *p, int key, struct arc_seal_work *w, FILE *out)
{
	unsigned char s[DKIM_SIG_MAX];
	char b64[DKIM_B64_MAX(DKIM_SIG_MAX) * 2 + 64];
	size_t slen;

	if (dkim_copy_signature(p, key, w->data, w->dlen, s, &slen) == -1)
		return -1;
	fwrite(b64, 1, dkim_copy_b64(b64, s, slen, p->eol, 1), out);
	fputs(p->eol, out);
	return 0;
}

/* arc_seal_priors - the sets below instance i, in instance order, onto
 * w's data (AAR, AMS, AS each) */
static void
arc_seal_priors(struct arc_seal_work *w, int instance)
{
	static const enum arc_kind order[] = {ARC_AAR, ARC_AMS, ARC_AS};
	size_t j, k;
	int i;

	for (i = 1; i < instance; i++)
		for (k = 0; k < 3; k++)
			for (j = 0; j < w->nf; j++)
				if (arc_kind(w->f[j].p, w->f[j].namelen) ==
					order[k] &&
				    arc_instance(w->f[j].p, w->f[j].len,
					w->f[j].namelen) == i) {
					arc_seal_add(
					    w, w->f[j].p, w->f[j].len, 1);
					break;
				}
}

/* arc_seal_close - a field written into fp (a memory stream over *buf)
 * closed: *buf, or NULL (and freed) when writing it failed (ok 0) */
static char *
arc_seal_close(FILE *fp, char **buf, int ok)
{
	if (fclose(fp) == EOF || !ok) {
		free(*buf);
		*buf = NULL;
	}
	return *buf;
}

/* arc_seal_aar - the ARC-Authentication-Results field, length in *len:
 * the MTA's trusted results, or the list's verdict on the chain */
static char *
arc_seal_aar(
    const struct dkim_prep *p, const struct arc_verdict *v, size_t *len)
{
	char *buf = NULL;
	FILE *fp;

	if ((fp = open_memstream(&buf, len)) == NULL)
		return NULL;
	if (v->ar)
		fprintf(fp, "ARC-Authentication-Results: i=%d; %s%s",
		    v->instance, v->results, p->eol);
	else
		fprintf(fp, "ARC-Authentication-Results: i=%d; %s; arc=%s%s",
		    v->instance, p->domain, arc_cv_name(v->cv), p->eol);
	return arc_seal_close(fp, &buf, 1);
}

/* arc_seal_ams - the ARC-Message-Signature field over w's fields, time
 * t, length in *len */
static char *
arc_seal_ams(const struct dkim_prep *p, int key, const struct arc_verdict *v,
    struct arc_seal_work *w, long long t, size_t *len)
{
	char *buf = NULL;
	FILE *fp;

	if ((fp = open_memstream(&buf, len)) == NULL)
		return NULL;
	fprintf(fp,
	    "ARC-Message-Signature: i=%d; a=rsa-sha256; c=relaxed/relaxed;"
	    "%s\td=%s; s=%s; t=%lld;%s\th=",
	    v->instance, p->eol, p->domain, p->sig[key].sel, t, p->eol);
	w->dlen = 0;
	arc_seal_hlist(w, fp);
	fprintf(fp, ";%s\tbh=%s;%s\tb=", p->eol, p->bh, p->eol);
	if (fflush(fp) != 0)
		return arc_seal_close(fp, &buf, 0);
	arc_seal_add(w, buf, *len, 0);
	return arc_seal_close(fp, &buf, arc_seal_sign(p, key, w, fp) == 0);
}

/* arc_seal_as - the ARC-Seal field over the sets below (none with
 * cv=fail) and this one's aar and ams, time t, length in *len */
static char *
arc_seal_as(const struct dkim_prep *p, int key, const struct arc_verdict *v,
    struct arc_seal_work *w, long long t, const char *aar, size_t aarlen,
    const char *ams, size_t amslen, size_t *len)
{
	char *buf = NULL;
	FILE *fp;

	if ((fp = open_memstream(&buf, len)) == NULL)
		return NULL;
	fprintf(fp,
	    "ARC-Seal: i=%d; a=rsa-sha256; cv=%s;%s\td=%s; s=%s; t=%lld;%s"
	    "\tb=",
	    v->instance, arc_cv_name(v->cv), p->eol, p->domain, p->sig[key].sel,
	    t, p->eol);
	if (fflush(fp) != 0)
		return arc_seal_close(fp, &buf, 0);
	w->dlen = 0;
	if (v->cv != ARC_CV_FAIL)
		arc_seal_priors(w, v->instance);
	arc_seal_add(w, aar, aarlen, 1);
	arc_seal_add(w, ams, amslen, 1);
	arc_seal_add(w, buf, *len, 0);
	return arc_seal_close(fp, &buf, arc_seal_sign(p, key, w, fp) == 0);
}

/* arc_seal_fields - the three fields, top down AS, AMS, AAR, into out */
static int
arc_seal_fields(const struct dkim_prep *p, int key, const struct arc_verdict *v,
    struct arc_seal_work *w, FILE *out)
{
	char *aar, *ams = NULL, *as = NULL;
	size_t aarlen, amslen, aslen;
	long long t = (long long)time(NULL);
	int r = -1;

	if ((aar = arc_seal_aar(p, v, &aarlen)) != NULL &&
	    (ams = arc_seal_ams(p, key, v, w, t, &amslen)) != NULL &&
	    (as = arc_seal_as(
		 p, key, v, w, t, aar, aarlen, ams, amslen, &aslen)) != NULL) {
		fwrite(as, 1, aslen, out);
		fwrite(ams, 1, amslen, out);
		fwrite(aar, 1, aarlen, out);
		r = 0;
	}
	free(aar);
	free(ams);
	free(as);
	return r;
}

/* arc_seal - v's set for the text p was prepared from, with head on top
 * of it, in *out (malloc'd; empty when v seals nothing or the domain has
 * no RSA key); -1 with err */
int
arc_seal(const struct dkim_prep *p, const char *head, size_t headlen,
    const struct arc_verdict *v, char **out, size_t *outlen, char *err,
    size_t errlen)
{
	struct arc_seal_work w;
	size_t n = headlen + p->hdrlen, cap;
	const char *body;
	char *all = NULL;
	int key, r = -1;
	FILE *fp;

	*out = NULL;
	*outlen = 0;
	for (key = 0; key < p->nsig && p->sig[key].ed; key++)
		;
	if (!v->seal || key == p->nsig)
		return (*out = strdup("")) != NULL ? 0 : -1;
	memset(&w, 0, sizeof(w));
	cap = (headlen > 0 ? dkim_canon_fields(head, headlen, NULL, 0, &body)
			   : 0) +
	      p->nfall + 1;
	/* the text's fields and the set's own, canonical, with CRLFs */
	if ((all = malloc(n + 1)) == NULL ||
	    (w.f = reallocarray(NULL, cap, sizeof(*w.f))) == NULL ||
	    (w.used = malloc(cap)) == NULL ||
	    (w.data = malloc(2 * n + 2 * cap + 4 * ARC_AAR_MAX +
			     4 * DKIM_B64_MAX(DKIM_SIG_MAX) + 2048)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (headlen > 0)
		memcpy(all, head, headlen);
	memcpy(all + headlen, p->hdr, p->hdrlen);
	if ((w.nf = dkim_canon_fields(all, n, w.f, cap, &body)) > cap)
		w.nf = cap;
	if ((fp = open_memstream(out, outlen)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	r = arc_seal_fields(p, key, v, &w, fp);
	if (fclose(fp) == EOF)
		r = -1;
	if (r == -1) {
		snprintf(err, errlen, "ARC sealing with selector %s: %s",
		    p->sig[key].sel, dkim_ossl());
		free(*out);
		*out = NULL;
		*outlen = 0;
	}
out:
	free(all);
	free(w.f);
	free(w.used);
	free(w.data);
	return r;
}

/* arc_sign_text - dkim_sign_text's fields for text, with v's ARC set
 * above them (v NULL or sealing nothing: the DKIM fields alone), in
 * *out (malloc'd; empty when the domain signs nothing) */
int
arc_sign_text(struct dkim_signer *ds, const struct dkim_conf *dc,
    const char *domain, const char *text, size_t len,
    const struct arc_verdict *v, char **out, size_t *outlen, char *err,
    size_t errlen)
{
	struct dkim_prep *p;
	char *sig = NULL, *arc = NULL;
	size_t siglen, arclen;
	int r = -1;

	if (v == NULL || !v->seal)
		return dkim_sign_text(
		    ds, dc, domain, text, len, out, outlen, err, errlen);
	*out = NULL;
	*outlen = 0;
	if (dkim_sign_prepare(ds, dc, domain, text, len, &p, err, errlen) == -1)
		return -1;
	if (p == NULL)
		return (*out = strdup("")) != NULL ? 0 : -1;
	if (dkim_copy_sign(p, NULL, 0, &sig, &siglen, err, errlen) == 0 &&
	    arc_seal(p, sig, siglen, v, &arc, &arclen, err, errlen) == 0) {
		if ((*out = malloc(arclen + siglen + 1)) == NULL)
			snprintf(err, errlen, "out of memory");
		else {
			memcpy(*out, arc, arclen);
			memcpy(*out + arclen, sig, siglen);
			(*out)[arclen + siglen] = '\0';
			*outlen = arclen + siglen;
			r = 0;
		}
	}
	free(sig);
	free(arc);
	dkim_prep_free(p);
	return r;
}
