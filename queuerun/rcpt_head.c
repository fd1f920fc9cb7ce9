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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "names.h"
#include "rcpt_head.h"
#include "unsub_token.h"

struct rcpt_head {
	char url[sizeof(((struct listconf *)0)->unsubscribe_url)];
	char list[NAME_LIST_MAX + 1];
	char domain[NAME_DOMAIN_MAX + 1];
	long long issued;
	struct unsub_secret secret;
};

/* rcpt_head_open - the per-recipient fields of a list's post, or NULL
 * in *out when the list has none; 0 ok, -1 with err (the message waits) */
int
rcpt_head_open(struct rcpt_head **out, const struct settings *s,
    const struct listconf *lc, const char *list, const char *domain,
    char *err, size_t errlen)
{
	struct rcpt_head *h;

	*out = NULL;
	if (lc->unsubscribe_url[0] == '\0')
		return 0;
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (unsub_secret_load(&h->secret, s->unsubscribe_secret_file, err,
		errlen) == -1) {
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
	char link[2048];
	FILE *fp;

	*out = NULL;
	*len = 0;
	if (unsub_link_make(&h->secret, h->url, h->list, h->domain, addr,
		h->issued, link, sizeof(link)) == -1 ||
	    (fp = open_memstream(out, len)) == NULL)
		return -1;
	fprintf(fp,
	    "List-Unsubscribe: <%s>,\n"
	    " <mailto:majordomo@%s?body=unsubscribe%%20%s>\n"
	    "List-Unsubscribe-Post: List-Unsubscribe=One-Click\n",
	    link, h->domain, h->list);
	if (fclose(fp) == EOF) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* rcpt_head_free - let it go (the secret is wiped) */
void
rcpt_head_free(struct rcpt_head *h)
{
	if (h == NULL)
		return;
	explicit_bzero(&h->secret, sizeof(h->secret));
	free(h);
}
