/*
 * arc_chain.c - the ARC sets a post arrived with, validated in chain
 * order (RFC 8617 5.2): every instance 1 to N has exactly one AAR, AMS
 * and AS; the first AS says cv=none and the others cv=pass; each AS
 * verifies over the sets up to its own; the newest AMS verifies over
 * the post as it arrived.  Keys come from DNS TXT (<s>._domainkey.<d>)
 * through the look-up the DMARC policies use, at most ARC_KEYS_MAX of
 * them per post, so a chain costs a bounded wait.  rsa-sha256 and
 * relaxed/relaxed only (what RFC 8617 sealers use); anything else, and
 * any failure, is cv=fail.  A chain of ARC_INSTANCE_MAX sets is not
 * extended.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "arc.h"
#include "dkim_canon.h"

#define ARC_FIELDS_MAX 1000   /* header fields looked at */
#define ARC_TXT_MAX 4096      /* bytes of a key's TXT records */
#define ARC_RSA_MIN_BITS 1024 /* RFC 8301 3.2 */
#define ARC_B64(n) (4 * (((n) + 2) / 3))

/* A chain being judged: the post's fields, its sets, the keys fetched. */
struct arc_chain {
	const char *text;
	size_t len;
	struct dkim_field *f;
	size_t nf;
	int set[ARC_INSTANCE_MAX + 2][3]; /* field of AAR, AMS, AS per i */
	int n;				  /* the highest instance */
	char *data;			  /* what a signature hashes */
	size_t dlen;
	unsigned char *used;
	struct {
		char name[400];
		EVP_PKEY *pkey; /* NULL: none usable */
	} key[ARC_KEYS_MAX];
	int nkeys;
	dmarc_txt_fn *txt;
	void *arg;
};

/* arc_chain_fail - v fails for why */
static int
arc_chain_fail(struct arc_verdict *v, const char *why, int i)
{
	v->cv = ARC_CV_FAIL;
	if (i > 0)
		snprintf(v->why, sizeof(v->why), "%s (i=%d)", why, i);
	else
		snprintf(v->why, sizeof(v->why), "%s", why);
	return -1;
}

/* arc_chain_sets - the ARC fields of c's post by instance, and the
 * highest instance; -1 when malformed (v says why) */
static int
arc_chain_sets(struct arc_chain *c, struct arc_verdict *v)
{
	enum arc_kind k;
	size_t j;
	int i, r = 0;

	memset(c->set, -1, sizeof(c->set));
	c->n = 0;
	for (j = 0; j < c->nf; j++) {
		if ((k = arc_kind(c->f[j].p, c->f[j].namelen)) == ARC_NOT)
			continue;
		if ((i = arc_instance(
			 c->f[j].p, c->f[j].len, c->f[j].namelen)) == -1)
			r = arc_chain_fail(v, "an ARC field without i=", 0);
		else if (c->set[i][k - 1] != -1)
			r = arc_chain_fail(v, "two ARC fields of a kind", i);
		else
			c->set[i][k - 1] = (int)j;
		if (i > c->n)
			c->n = i;
	}
	return r;
}

/* arc_chain_key - the public key named s._domainkey.d, fetched once per
 * chain; NULL when there is none usable (v says why) */
static EVP_PKEY *
arc_chain_key(
    struct arc_chain *c, const char *s, const char *d, struct arc_verdict *v)
{
	char name[400], txt[ARC_TXT_MAX], why[160], p[ARC_TXT_MAX];
	unsigned char der[ARC_TXT_MAX];
	const unsigned char *dp = der;
	const char *line, *nl;
	unsigned ttl;
	int k, dl;

	snprintf(name, sizeof(name), "%s._domainkey.%s", s, d);
	for (k = 0; k < c->nkeys; k++)
		if (strcasecmp(c->key[k].name, name) == 0)
			return c->key[k].pkey;
	if (c->nkeys == ARC_KEYS_MAX) {
		arc_chain_fail(v, "more keys than are looked up", 0);
		return NULL;
	}
	k = c->nkeys++;
	(void)strlcpy(c->key[k].name, name, sizeof(c->key[k].name));
	c->key[k].pkey = NULL;
	if (c->txt(c->arg, name, txt, sizeof(txt), &ttl, why, sizeof(why)) !=
	    1) {
		arc_chain_fail(v, "no key in DNS", 0);
		return NULL;
	}
	for (line = txt; *line != '\0'; line = nl + (*nl != '\0')) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		if (arc_tag_copy(
			line, (size_t)(nl - line), "p", p, sizeof(p)) == -1 ||
		    p[0] == '\0' ||
		    (dl = EVP_DecodeBlock(
			 der, (unsigned char *)p, (int)strlen(p))) <= 0)
			continue;
		dl -= (p[strlen(p) - 1] == '=') + (p[strlen(p) - 2] == '=');
		if ((c->key[k].pkey = d2i_PUBKEY(NULL, &dp, dl)) == NULL)
			continue;
		if (EVP_PKEY_get_base_id(c->key[k].pkey) == EVP_PKEY_RSA &&
		    EVP_PKEY_get_bits(c->key[k].pkey) >= ARC_RSA_MIN_BITS)
			return c->key[k].pkey;
		EVP_PKEY_free(c->key[k].pkey); /* RFC 8301: too weak */
		c->key[k].pkey = NULL;
	}
	arc_chain_fail(v, "no usable key in DNS", 0);
	return NULL;
}

/* arc_chain_verify - the signature in the field (j of c's fields)
 * verifies over c's data, with the key its tags name */
static int
arc_chain_verify(struct arc_chain *c, size_t j, struct arc_verdict *v, int i)
{
	const struct dkim_field *f = &c->f[j];
	const char *val = f->p + f->namelen + 1;
	size_t vlen = f->len - f->namelen - 1;
	char a[32], s[64], d[256], b[ARC_B64(1024) + 8];
	unsigned char sig[1024 + 8];
	EVP_PKEY *pkey;
	EVP_MD_CTX *md;
	int ok, sl;

	if (arc_tag_copy(val, vlen, "a", a, sizeof(a)) == -1 ||
	    strcmp(a, "rsa-sha256") != 0)
		return arc_chain_fail(v, "not rsa-sha256", i);
	if (arc_tag_copy(val, vlen, "s", s, sizeof(s)) == -1 ||
	    arc_tag_copy(val, vlen, "d", d, sizeof(d)) == -1 ||
	    arc_tag_copy(val, vlen, "b", b, sizeof(b)) == -1 || b[0] == '\0')
		return arc_chain_fail(v, "a signature without d=, s= or b=", i);
	if ((pkey = arc_chain_key(c, s, d, v)) == NULL)
		return -1;
	if ((sl = EVP_DecodeBlock(sig, (unsigned char *)b, (int)strlen(b))) <=
	    0)
		return arc_chain_fail(v, "b= is not base64", i);
	sl -= (b[strlen(b) - 1] == '=') + (b[strlen(b) - 2] == '=');
	if ((md = EVP_MD_CTX_new()) == NULL)
		return arc_chain_fail(v, "out of memory", i);
	ok = EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pkey) == 1 &&
	     EVP_DigestVerify(
		 md, sig, (size_t)sl, (unsigned char *)c->data, c->dlen) == 1;
	EVP_MD_CTX_free(md);
	return ok ? 0 : -1;
}

/* arc_chain_add - field j canonicalized onto c's data; its signature
 * left out (the field being verified, last, without CRLF) or not */
static void
arc_chain_add(struct arc_chain *c, size_t j, int last)
{
	char *tmp = c->data + c->dlen + c->f[j].len + 2;
	size_t n;

	if (!last) {
		c->dlen += dkim_canon_header(
		    c->f[j].p, c->f[j].len, c->data + c->dlen);
		memcpy(c->data + c->dlen, "\r\n", 2);
		c->dlen += 2;
		return;
	}
	/* stripped past where the canonical form goes, then put there */
	n = arc_strip_b(c->f[j].p, c->f[j].len, tmp);
	c->dlen += dkim_canon_header(tmp, n, c->data + c->dlen);
}

/* arc_chain_seal - AS i verifies over the sets 1 to i */
static int
arc_chain_seal(struct arc_chain *c, int i, struct arc_verdict *v)
{
	const struct dkim_field *f = &c->f[c->set[i][ARC_AS - 1]];
	char cv[8];
	int k, j;

	if (arc_tag_copy(f->p + f->namelen + 1, f->len - f->namelen - 1, "cv",
		cv, sizeof(cv)) == -1 ||
	    strcmp(cv, i == 1 ? "none" : "pass") != 0)
		return arc_chain_fail(v, "an ARC-Seal with a wrong cv=", i);
	c->dlen = 0;
	for (j = 1; j <= i; j++)
		for (k = 0; k < 3; k++)
			arc_chain_add(
			    c, (size_t)c->set[j][k], j == i && k == ARC_AS - 1);
	if (arc_chain_verify(c, (size_t)c->set[i][ARC_AS - 1], v, i) == -1)
		return v->cv == ARC_CV_FAIL
			   ? -1
			   : arc_chain_fail(
				 v, "an ARC-Seal does not verify", i);
	return 0;
}

/* arc_chain_body - dkim_canon_out into a digest */
static void
arc_chain_body(void *arg, const void *p, size_t n)
{
	EVP_DigestUpdate(arg, p, n);
}

/* arc_chain_bh - the post's body hash (relaxed, SHA-256) is bh */
static int
arc_chain_bh(struct arc_chain *c, const char *bh)
{
	unsigned char d[EVP_MAX_MD_SIZE], b64[ARC_B64(EVP_MAX_MD_SIZE) + 1];
	const char *body;
	EVP_MD_CTX *md;
	int ok = 0;

	(void)dkim_canon_fields(c->text, c->len, NULL, 0, &body);
	if ((md = EVP_MD_CTX_new()) != NULL &&
	    EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1) {
		dkim_canon_body(body, (size_t)(c->text + c->len - body),
		    arc_chain_body, md);
		if (EVP_DigestFinal_ex(md, d, NULL) == 1) {
			b64[EVP_EncodeBlock(b64, d, 32)] = '\0';
			ok = strcmp((char *)b64, bh) == 0;
		}
	}
	EVP_MD_CTX_free(md);
	return ok;
}

/* arc_chain_hfields - the fields h= (hl bytes at h) names onto c's
 * data, as a verifier selects them: for each name the last instance not
 * yet used, names split at ':' with the white space around them left
 * out; -1 when it names ARC-Seal */
static int
arc_chain_hfields(struct arc_chain *c, const char *h, size_t hl)
{
	const char *end = h + hl, *s, *t;
	size_t k, nl;

	memset(c->used, 0, c->nf);
	while (h < end) {
		if ((t = memchr(h, ':', (size_t)(end - h))) == NULL)
			t = end;
		s = h;
		h = t + 1;
		while (s < t && strchr(" \t\r\n", *s) != NULL)
			s++;
		while (t > s && strchr(" \t\r\n", t[-1]) != NULL)
			t--;
		if ((nl = (size_t)(t - s)) == 0)
			continue;
		if (arc_kind(s, nl) == ARC_AS)
			return -1;
		for (k = c->nf; k-- > 0;)
			if (!c->used[k] && c->f[k].namelen == nl &&
			    strncasecmp(c->f[k].p, s, nl) == 0) {
				c->used[k] = 1;
				arc_chain_add(c, k, 0);
				break;
			}
	}
	return 0;
}

/* arc_chain_ams - the newest AMS verifies over the post */
static int
arc_chain_ams(struct arc_chain *c, struct arc_verdict *v)
{
	size_t j = (size_t)c->set[c->n][ARC_AMS - 1], hl;
	const struct dkim_field *f = &c->f[j];
	const char *val = f->p + f->namelen + 1, *h;
	size_t vlen = f->len - f->namelen - 1;
	char cc[32], bh[ARC_B64(EVP_MAX_MD_SIZE) + 8];

	if (arc_tag_copy(val, vlen, "c", cc, sizeof(cc)) == 0 &&
	    strcmp(cc, "relaxed/relaxed") != 0)
		return arc_chain_fail(v, "an AMS not relaxed/relaxed", c->n);
	if (arc_tag_copy(val, vlen, "bh", bh, sizeof(bh)) == -1 ||
	    !arc_chain_bh(c, bh))
		return arc_chain_fail(v, "the body hash differs", c->n);
	if (!arc_tag(val, vlen, "h", &h, &hl))
		return arc_chain_fail(v, "an AMS without h=", c->n);
	c->dlen = 0;
	if (arc_chain_hfields(c, h, hl) == -1)
		return arc_chain_fail(v, "an AMS signs ARC-Seal", c->n);
	arc_chain_add(c, j, 1);
	if (arc_chain_verify(c, j, v, c->n) == -1)
		return v->cv == ARC_CV_FAIL
			   ? -1
			   : arc_chain_fail(
				 v, "the newest AMS does not verify", c->n);
	return 0;
}

/* arc_chain_check - c's sets complete, each seal and the newest AMS
 * verified, in chain order; -1 at the first failure (v says why) */
static int
arc_chain_check(struct arc_chain *c, struct arc_verdict *v)
{
	int i, k;

	for (i = 1; i <= c->n; i++)
		for (k = 0; k < 3; k++)
			if (c->set[i][k] == -1)
				return arc_chain_fail(
				    v, "an incomplete ARC set", i);
	for (i = 1; i <= c->n; i++)
		if (arc_chain_seal(c, i, v) == -1)
			return -1;
	return arc_chain_ams(c, v);
}

/* arc_chain_judge - the chain text (len bytes, as it arrived) carries:
 * v->cv, v->instance of the set to add, v->seal 0 when none may be */
void
arc_chain_judge(struct arc_verdict *v, const char *text, size_t len,
    dmarc_txt_fn *txt, void *arg)
{
	struct arc_chain *c;
	const char *body;
	size_t n;
	int k;

	v->seal = 1;
	v->cv = ARC_CV_NONE;
	v->instance = 1;
	v->why[0] = '\0';
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		(void)arc_chain_fail(v, "out of memory", 0);
		return;
	}
	c->text = text;
	c->len = len;
	c->txt = txt;
	c->arg = arg;
	if ((n = dkim_canon_fields(text, len, NULL, 0, &body)) > ARC_FIELDS_MAX)
		n = ARC_FIELDS_MAX;
	if ((c->f = reallocarray(NULL, n + 1, sizeof(*c->f))) == NULL ||
	    (c->used = malloc(n + 1)) == NULL ||
	    (c->data = malloc(3 * (size_t)(body - text) + 2 * n + 16)) ==
		NULL) {
		(void)arc_chain_fail(v, "out of memory", 0);
		goto out;
	}
	if ((c->nf = dkim_canon_fields(text, len, c->f, n, &body)) > n)
		c->nf = n;
	if (arc_chain_sets(c, v) == 0 && c->n > 0)
		v->cv = arc_chain_check(c, v) == 0 ? ARC_CV_PASS : ARC_CV_FAIL;
	if (c->n == 0) /* no set to extend: ARC fields without i= ignored */
		v->cv = ARC_CV_NONE;
	if (c->n >= ARC_INSTANCE_MAX)
		v->seal = 0; /* RFC 8617 4.2.1: no instance 51 */
	v->instance =
	    c->n >= ARC_INSTANCE_MAX ? ARC_INSTANCE_MAX + 1 : c->n + 1;
out:
	for (k = 0; k < c->nkeys; k++)
		EVP_PKEY_free(c->key[k].pkey);
	free(c->f);
	free(c->used);
	free(c->data);
	free(c);
}
