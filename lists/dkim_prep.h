/*
 * dkim_prep.h - a text prepared for DKIM signatures: made once per text
 * by dkim_sign.c (dkim_sign_prepare), then signed, whole or per copy, by
 * dkim_copy.c, with each thread's copies of the RSA keys (dkim_tkey.c);
 * sealed for ARC by arc_seal.c with the same body hash and RSA key.
 * Private to those four.
 */
#ifndef MJQ_DKIM_PREP_H
#define MJQ_DKIM_PREP_H

#include <stddef.h>

#include <openssl/evp.h>

#include "dkim_conf.h"

#define DKIM_FIELDS_MAX 1000 /* header fields looked at */
#define DKIM_SIGS_MAX (DKIM_RSA_SELECTORS_MAX + 1)
#define DKIM_SIG_MAX 1024 /* bytes of a signature: RSA up to 8192 bits */
#define DKIM_B64_MAX(n) (4 * (((n) + 2) / 3))

/* One header field of the text's own header section, looked at once:
 * where it starts in hdr, whether it is signed, and its canonical form
 * (in canon, no line end) when it is. */
struct dkim_prep_field {
	size_t off, len;
	size_t coff, clen;
	int sign;
};

/* A text ready to be signed, once or per copy: what every copy shares
 * (the body hash, the text's header section with its fields
 * canonicalized, the keys held and their signing contexts set up).
 * Read only once made, so delivery threads may sign copies at the same
 * time: each thread signs rsa-sha256 with its own copy of the key
 * (dkim_tkey.c), ed25519-sha256 with a copy of the context
 * (EVP_MD_CTX_copy_ex only reads its source). */
struct dkim_prep {
	char domain[256];
	char eol[3];
	char bh[DKIM_B64_MAX(EVP_MAX_MD_SIZE) + 1]; /* the body hash, base64 */
	char *hdr; /* the text's header section, as dkim_canon_fields ends it */
	size_t hdrlen;
	struct dkim_prep_field *f; /* hdr's first DKIM_FIELDS_MAX fields */
	size_t nf, nfall;	   /* stored; in hdr */
	char *canon;
	EVP_MD *sha256;
	size_t tagsmax, sigmax; /* the longest tags and signature below */
	int nsig;
	struct {
		char sel[DKIM_SELECTOR_MAX + 1];
		int ed;
		EVP_PKEY *pkey;
		unsigned long serial; /* pkey's, unique in the process */
		EVP_MD_CTX *edmd; /* ed25519-sha256: ready for EVP_DigestSign */
		char *tags;	  /* the field's start, up to its t= */
	} sig[DKIM_SIGS_MAX];
};

/* dkim_copy.c: what dkim_sign_prepare asks of it */
int dkim_copy_fields(struct dkim_prep *p);
size_t dkim_copy_b64(
    char *out, const unsigned char *p, size_t n, const char *eol, int fold);
int dkim_copy_signature(const struct dkim_prep *p, int i, const char *data,
    size_t len, unsigned char *sig, size_t *slen);

/* dkim_tkey.c */
EVP_PKEY_CTX *dkim_tkey_ready(EVP_PKEY *pkey, EVP_MD *sha256);
EVP_PKEY_CTX *dkim_tkey_ctx(const struct dkim_prep *p, int i);
void dkim_tkey_forget(void);

#endif
