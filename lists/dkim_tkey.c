/*
 * dkim_tkey.c - each thread's own copies of the RSA keys it signs with.
 *
 * An RSA key object shared by threads makes them take its lock on every
 * signature (OpenSSL's blinding: the key's own, for the thread that made
 * it, and a shared one under a second lock for all others), so 100
 * delivery threads signing one-click copies with one key wait on each
 * other.  A thread that signs with a key of its own takes only
 * uncontended locks and keeps its own blinding.
 *
 * The copy is made at the thread's first signature with a key
 * (EVP_PKEY_dup, which only reads the shared key) and kept, with a
 * signing context set up on it, for as long as the thread lives: keys
 * are known by their serial (dkim_sign.c numbers each key it parses), so
 * the copies serve every later message signed with the same key and a
 * key replaced on disk is never mistaken for its predecessor.  A few
 * kilobytes per key and thread (about 9 KB for RSA-2048, so 0.9 MB for
 * 100 threads); the least recently used copy goes when a thread has
 * DKIM_TKEY_MAX.  What they cost and save is measured in
 * docs/benchmarks.md (one-click copies).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "dkim_prep.h"

#define DKIM_TKEY_MAX 8 /* keys a thread keeps copies of */

/* A thread's copy of a key. */
struct dkim_tkey {
	unsigned long serial;
	EVP_PKEY *pkey;
	EVP_PKEY_CTX *ctx; /* ready for EVP_PKEY_sign, rsa-sha256 */
};

/* A thread's copies, most recently used first. */
struct dkim_tkeys {
	struct dkim_tkey k[DKIM_TKEY_MAX];
	int n;
};

static pthread_key_t dkim_tkey_key;
static pthread_once_t dkim_tkey_once = PTHREAD_ONCE_INIT;
static int dkim_tkey_key_ok;

/* dkim_tkey_drop - let copy j of t go */
static void
dkim_tkey_drop(struct dkim_tkeys *t, int j)
{
	EVP_PKEY_CTX_free(t->k[j].ctx);
	EVP_PKEY_free(t->k[j].pkey);
}

/* dkim_tkey_end - a thread ends: its copies go */
static void
dkim_tkey_end(void *arg)
{
	struct dkim_tkeys *t = arg;
	int j;

	for (j = 0; j < t->n; j++)
		dkim_tkey_drop(t, j);
	free(t);
}

/* dkim_tkey_init - the key whose destructor lets a thread's copies go */
static void
dkim_tkey_init(void)
{
	dkim_tkey_key_ok =
	    pthread_key_create(&dkim_tkey_key, dkim_tkey_end) == 0;
}

/* dkim_tkey_mine - this thread's copies, made at its first use; NULL
 * when they cannot be kept (out of memory: the copy waits) */
static struct dkim_tkeys *
dkim_tkey_mine(void)
{
	struct dkim_tkeys *t;

	if (pthread_once(&dkim_tkey_once, dkim_tkey_init) != 0 ||
	    !dkim_tkey_key_ok)
		return NULL;
	if ((t = pthread_getspecific(dkim_tkey_key)) != NULL)
		return t;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	if (pthread_setspecific(dkim_tkey_key, t) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* dkim_tkey_forget - this thread's copies go now: the main thread's,
 * whose destructor does not run at exit */
void
dkim_tkey_forget(void)
{
	struct dkim_tkeys *t;

	if (pthread_once(&dkim_tkey_once, dkim_tkey_init) != 0 ||
	    !dkim_tkey_key_ok ||
	    (t = pthread_getspecific(dkim_tkey_key)) == NULL)
		return;
	(void)pthread_setspecific(dkim_tkey_key, NULL);
	dkim_tkey_end(t);
}

/* dkim_tkey_ready - a signing context for rsa-sha256 over a digest, on
 * pkey; NULL on failure */
EVP_PKEY_CTX *
dkim_tkey_ready(EVP_PKEY *pkey, EVP_MD *sha256)
{
	EVP_PKEY_CTX *ctx;

	if ((ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL)) == NULL)
		return NULL;
	if (EVP_PKEY_sign_init(ctx) != 1 ||
	    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) != 1 ||
	    EVP_PKEY_CTX_set_signature_md(ctx, sha256) != 1) {
		EVP_PKEY_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

/* dkim_tkey_ctx - this thread's signing context for RSA signature i of
 * p, on its own copy of the key, made at the first use; NULL out of
 * memory */
EVP_PKEY_CTX *
dkim_tkey_ctx(const struct dkim_prep *p, int i)
{
	struct dkim_tkeys *t;
	struct dkim_tkey hit;
	int j;

	if ((t = dkim_tkey_mine()) == NULL)
		return NULL;
	for (j = 0; j < t->n; j++)
		if (t->k[j].serial == p->sig[i].serial)
			break;
	if (j < t->n) {
		hit = t->k[j];
	} else {
		hit.serial = p->sig[i].serial;
		if ((hit.pkey = EVP_PKEY_dup(p->sig[i].pkey)) == NULL)
			return NULL;
		if ((hit.ctx = dkim_tkey_ready(hit.pkey, p->sha256)) == NULL) {
			EVP_PKEY_free(hit.pkey);
			return NULL;
		}
		if (t->n == DKIM_TKEY_MAX)
			dkim_tkey_drop(t, --t->n);
		j = t->n++;
	}
	/* to the front: the least recently used is the last */
	memmove(&t->k[1], &t->k[0], (size_t)j * sizeof(t->k[0]));
	t->k[0] = hit;
	return hit.ctx;
}
