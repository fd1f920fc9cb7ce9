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
 *
 * A post whose footer asks for the link ($UNSUBSCRIBE_URL, left as
 * LIST_TEXT_LINK in the text by list_text.c and post_footer.c) has a
 * body of its own per copy too: the text is kept here (rcpt_head_text),
 * and each copy is made whole, the link in the footer, its body hashed,
 * sealed for ARC and signed per copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arc.h"
#include "dkim_copy.h"
#include "dkim_prep.h"
#include "dkim_sign.h"
#include "header.h"
#include "list_head.h"
#include "list_text.h"
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
	char *text;		   /* the text, when each copy is whole */
	size_t len, at, mlen;	   /* its length, the link's place in it */
	int qp;			   /* the place is LIST_TEXT_LINK_QP's */
	struct arc_verdict *arc;   /* then each copy's seal, or NULL */
};

/* rcpt_head_text - the text every copy is made of (len bytes): kept
 * when its footer has the place of each copy's own link (the last
 * LIST_TEXT_LINK: the footer comes after the post's own text), with
 * the post's ARC verdict when it is to be sealed (NULL: not); 0, or -1
 * out of memory */
int
rcpt_head_text(struct rcpt_head *h, const char *text, size_t len,
    const struct arc_verdict *arc)
{
	const char *at;

	free(h->text);
	free(h->arc);
	h->text = NULL;
	h->arc = NULL;
	if ((at = list_text_link(text, len, &h->mlen, &h->qp)) == NULL)
		return 0;
	if (arc != NULL && arc->seal && h->dkim != NULL) {
		if ((h->arc = malloc(sizeof(*h->arc))) == NULL)
			return -1;
		*h->arc = *arc;
	}
	if ((h->text = malloc(len)) == NULL)
		return -1;
	memcpy(h->text, text, len);
	h->len = len;
	h->at = (size_t)(at - text);
	return 0;
}

/* rcpt_head_whole - each copy is made whole by rcpt_head_make: the
 * shared text is not sent after it */
int
rcpt_head_whole(const struct rcpt_head *h)
{
	return h != NULL && h->text != NULL;
}

/* rcpt_head_body - the text with link in the place kept, malloc'd */
static char *
rcpt_head_body(const struct rcpt_head *h, const char *link, size_t *len)
{
	const char *after = h->text + h->at + h->mlen;
	char qp[4 * 2048 + 1];
	size_t ll;
	char *b;

	if (h->qp) {
		/* the text's soft break after the place says its line end */
		list_text_qp(link,
		    after + 1 < h->text + h->len && after[1] == '\r' ? "\r\n"
								     : "\n",
		    qp);
		link = qp;
	}
	ll = strlen(link);
	*len = h->len - h->mlen + ll;
	if ((b = malloc(*len)) == NULL)
		return NULL;
	memcpy(b, h->text, h->at);
	memcpy(b + h->at, link, ll);
	memcpy(b + h->at + ll, after, h->len - h->at - h->mlen);
	return b;
}

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
    const char *link, char **out, size_t *outlen)
{
	char err[300], *sig = NULL, *text = NULL, *arc = NULL;
	size_t siglen = 0, tlen = 0, arclen = 0;
	struct dkim_prep q;
	const char *body;
	int r = -1;

	if (h->text != NULL && (text = rcpt_head_body(h, link, &tlen)) == NULL)
		return -1;
	if (h->dkim != NULL && text != NULL) {
		/* A body of its own: the prepared signing with this body's
		 * hash (read only: its keys stay the prepared ones'), its
		 * own ARC set when the list seals, then its signatures. */
		q = *h->dkim;
		body = header_end(text, tlen);
		if (dkim_prep_bh(
			&q, body, (size_t)(text + tlen - body), q.bh) == -1 ||
		    (h->arc != NULL && arc_seal(&q, NULL, 0, h->arc, &arc,
					   &arclen, err, sizeof(err)) == -1) ||
		    dkim_copy_sign(
			&q, fields, len, &sig, &siglen, err, sizeof(err)) == -1)
			goto done;
	} else if (h->dkim != NULL && dkim_copy_sign(h->dkim, fields, len, &sig,
					  &siglen, err, sizeof(err)) == -1)
		goto done;
	if ((*out = malloc(siglen + len + arclen + tlen)) == NULL)
		goto done;
	if (siglen > 0)
		memcpy(*out, sig, siglen);
	memcpy(*out + siglen, fields, len);
	if (arclen > 0)
		memcpy(*out + siglen + len, arc, arclen);
	if (tlen > 0)
		memcpy(*out + siglen + len + arclen, text, tlen);
	*outlen = siglen + len + arclen + tlen;
	r = 0;
done:
	free(sig);
	free(arc);
	free(text);
	return r;
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

/* rcpt_head_make - addr's own header fields (LF line ends), malloc'd,
 * and after them the whole copy when rcpt_head_whole; 0 ok, -1 out of
 * memory or a link too long */
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
	return rcpt_head_out(h, fields, (size_t)n, link, out, len);
}

/* rcpt_head_free - let it go (the key is wiped) */
void
rcpt_head_free(struct rcpt_head *h)
{
	if (h == NULL)
		return;
	unsub_maker_free(h->maker);
	dkim_prep_free(h->dkim);
	free(h->text);
	free(h->arc);
	free(h);
}
