/*
 * copy_rcpt.c - whose copy is this: the subscriber a copy of a list's
 * post was made for, when a report returns that copy (a complaint's
 * message/rfc822 or text/rfc822-headers part, or a bounce's).
 *
 * Only what the list itself wrote into the copy proves it, never a
 * field the poster wrote: a reply "To: carol, Cc: the list" carries
 * To: carol in every subscriber's copy.  The list writes two things per
 * copy, and the post's own fields of those names are dropped on the way
 * in (post_drop), so neither can come from the poster:
 *
 *   1. List-Unsubscribe with the recipient's one-click link (lists with
 *      unsubscribe_url): l=<list>@<domain>&a=<address>&t=&s=<MAC>; the
 *      MAC must verify under the site's secret (unsub_token_check) and
 *      the link name this list.  An expired link still proves whose
 *      copy it was.
 *   2. The VERP envelope sender <list>-owner+<user>=<host>@<domain>,
 *      which the final delivery agent writes into Return-Path.
 *
 * Pure text work; the caller loads the secret and reads the clock.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd_mime.h"
#include "header.h"
#include "copy_rcpt.h"
#include "names.h"
#include "unsub_link.h"

/* copy_rcpt_verp - the subscriber of a VERP address
 * <list>-owner+user=host@domain; 0, or -1 when addr is none */
int
copy_rcpt_verp(const char *domain, const char *list, const char *addr,
    char *out, size_t outlen)
{
	char a[NAME_ADDR_MAX + 1], prefix[NAME_LIST_MAX + 16];
	char *at, *eq;
	size_t k;

	k = (size_t)snprintf(prefix, sizeof(prefix), "%s-owner+", list);
	if (strlcpy(a, addr, sizeof(a)) >= sizeof(a) ||
	    strncasecmp(a, prefix, k) != 0 || (at = strrchr(a, '@')) == NULL ||
	    strcasecmp(at + 1, domain) != 0)
		return -1;
	*at = '\0';
	if ((eq = strrchr(a + k, '=')) == NULL)
		return -1;
	*eq = '@';
	return strlcpy(out, a + k, outlen) < outlen && name_addr_ok(out) ? 0
									 : -1;
}

/* copy_rcpt_token - the address of the copy's own one-click link, when
 * its MAC is genuine and it names this list; 0, -1 none, or -2 a link
 * of this list whose MAC is forged (the copy was altered) */
static int
copy_rcpt_token(const char *domain, const char *list,
    const struct unsub_secret *us, time_t now, const char *hdr, size_t len,
    char *out, size_t outlen)
{
	char v[4096];
	struct unsub_link l;

	if (us == NULL || us->n == 0 ||
	    header_value(hdr, len, "List-Unsubscribe", v, sizeof(v)) == -1 ||
	    unsub_link_of_header(v, &l) == -1 || strcmp(l.list, list) != 0 ||
	    strcasecmp(l.domain, domain) != 0)
		return -1;
	if (unsub_token_check(us, l.list, l.domain, l.addr, l.issued, l.mac,
		now, LLONG_MAX) == UNSUB_FORGED)
		return -2;
	return strlcpy(out, l.addr, outlen) < outlen ? 0 : -1;
}

/* copy_rcpt - whose copy the header (hdr, len) of a returned copy of
 * list's post is, and what proves it; out is "" for COPY_NOBODY.  us is
 * the one-click secret, or NULL when there is none. */
enum copy_proof
copy_rcpt(const char *domain, const char *list, const struct unsub_secret *us,
    time_t now, const char *hdr, size_t len, char *out, size_t outlen)
{
	char v[1024], addr[NAME_ADDR_MAX + 1];
	int r;

	if ((r = copy_rcpt_token(
		 domain, list, us, now, hdr, len, out, outlen)) == 0)
		return COPY_TOKEN;
	/* a copy whose link was altered proves nothing, its VERP neither */
	if (r != -2 &&
	    header_value(hdr, len, "Return-Path", v, sizeof(v)) == 0 &&
	    header_addr(v, addr, sizeof(addr)) == 0 &&
	    copy_rcpt_verp(domain, list, addr, out, outlen) == 0)
		return COPY_VERP;
	if (outlen > 0)
		out[0] = '\0';
	return COPY_NOBODY;
}

/* copy_proof_name - what proved it, in words for the log */
const char *
copy_proof_name(enum copy_proof p)
{
	switch (p) {
	case COPY_TOKEN:
		return "the copy's one-click link";
	case COPY_VERP:
		return "the copy's VERP Return-Path";
	default:
		return "nothing";
	}
}
