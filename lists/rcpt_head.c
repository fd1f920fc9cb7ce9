/*
 * rcpt_head.c - the header fields each recipient of a post gets for
 * itself: with the list's unsubscribe_url set, List-Unsubscribe carries
 * that recipient's own one-click link (an HMAC token for its address,
 * lists/unsub_token.c) beside the mailto, and List-Unsubscribe-Post
 * says the link takes a one-click POST (RFC 8058).
 *
 * Made once per message activation on the main thread (the secret read,
 * the issue time fixed), then read-only: the workers make each
 * recipient's fields from it at delivery, so the rest of the text stays
 * one shared copy.  Each such copy is its own transaction, as with VERP.
 * RFC 8058 wants both fields under a DKIM signature, so such a copy is
 * signed here, per recipient, over its own fields and the shared text
 * (lists/dkim_copy.c: the body hash, keys and the text's own fields
 * prepared once, by text_sign.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dkim_copy.h"
#include "dkim_sign.h"
#include "list_head.h"
#include "names.h"
#include "rcpt_head.h"
#include "unsub_token.h"

struct rcpt_head {
	char url[sizeof(((struct listconf *)0)->unsubscribe_url)];
	char list[NAME_LIST_MAX + 1];
	char domain[NAME_DOMAIN_MAX + 1];
	long long issued;
	struct unsub_maker *maker; /* the tokens, keyed once */
	struct dkim_prep *dkim;	   /* the copies' signing, or NULL */
};

/* rcpt_head_sign - sign every copy with p (NULL: unsigned); h keeps it */
void
rcpt_head_sign(struct rcpt_head *h, struct dkim_prep *p)
{
	dkim_prep_free(h->dkim);
	h->dkim = p;
}

/* rcpt_head_out - the copy's fields (len bytes), under their DKIM
 * signatures when h signs, into *out (malloc'd); -1 when they cannot be
 * signed (the copy waits) or out of memory */
static int
rcpt_head_out(const struct rcpt_head *h, const char *fields, size_t len,
    char **out, size_t *outlen)
{
	char err[300], *sig = NULL;
	size_t siglen = 0;

	if (h->dkim != NULL && dkim_copy_sign(h->dkim, fields, len, &sig,
				   &siglen, err, sizeof(err)) == -1)
		return -1;
	if ((*out = malloc(siglen + len)) == NULL) {
		free(sig);
		return -1;
	}
	if (siglen > 0)
		memcpy(*out, sig, siglen);
	memcpy(*out + siglen, fields, len);
	*outlen = siglen + len;
	free(sig);
	return 0;
}

/* rcpt_head_open - the per-recipient fields of a list's post, or NULL
 * in *out when the list has none; 0 ok, -1 with err (the message waits) */
int
rcpt_head_open(struct rcpt_head **out, const struct lists_settings *ls,
    const struct listconf *lc, const char *list, const char *domain, char *err,
    size_t errlen)
{
	struct unsub_secret secret;
	struct rcpt_head *h;
	int r;

	*out = NULL;
	if (lc->unsubscribe_url[0] == '\0')
		return 0;
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((r = unsub_secret_load(
		 &secret, ls->unsubscribe_secret_file, err, errlen)) == 0 &&
	    (h->maker = unsub_maker_new(&secret)) == NULL) {
		snprintf(err, errlen,
		    "cannot key the unsubscribe tokens: out of memory");
		r = -1;
	}
	explicit_bzero(&secret, sizeof(secret));
	if (r == -1) {
		rcpt_head_free(h);
		return -1;
	}
	/* All three fit: the same sizes as their sources. */
	(void)strlcpy(h->url, lc->unsubscribe_url, sizeof(h->url));
	(void)strlcpy(h->list, list, sizeof(h->list));
	(void)strlcpy(h->domain, domain, sizeof(h->domain));
	h->issued = (long long)time(NULL);
	*out = h;
	return 0;
}

/* rcpt_head_make - addr's own header fields (LF line ends), malloc'd;
 * 0 ok, -1 out of memory or a link too long */
int
rcpt_head_make(
    const struct rcpt_head *h, const char *addr, char **out, size_t *len)
{
	char link[2048], fields[sizeof(link) + NAME_DOMAIN_MAX + 256];
	int n;

	*out = NULL;
	*len = 0;
	if (unsub_link_make(h->maker, h->url, h->list, h->domain, addr,
		h->issued, link, sizeof(link)) == -1)
		return -1;
	/* fits: the link, the domain and the list are bounded above */
	if ((n = list_head_unsub(
		 fields, sizeof(fields), h->list, h->domain, link)) == -1)
		return -1;
	return rcpt_head_out(h, fields, (size_t)n, out, len);
}

/* rcpt_head_free - let it go (the key is wiped) */
void
rcpt_head_free(struct rcpt_head *h)
{
	if (h == NULL)
		return;
	unsub_maker_free(h->maker);
	dkim_prep_free(h->dkim);
	free(h);
}
