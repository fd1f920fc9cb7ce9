/*
 * list_head.c - the header fields that name a list in its mail (RFC
 * 2369 List-Post, List-Help, List-Unsubscribe, List-Subscribe,
 * List-Owner, List-Archive; RFC 2919 List-Id; RFC 8058 one-click), with
 * Precedence: list and X-Loop beside them.  One writer for the three
 * places they appear: a post's header (listfn/post.c), a digest issue's
 * (listfn/digest_text.c) and, on a list with one-click links, each
 * copy's own List-Unsubscribe (rcpt_head.c).  A post's and a copy's
 * bytes are signed (DKIM, ARC), and tests read them: the text written
 * here is the contract, changed only on purpose.
 */
#include <stdio.h>

#include "archive_url.h"
#include "list_head.h"
#include "listconf.h"

/* list_head_mailto - the list's unsubscribe mailto, the one spelling of
 * it in a header field and in a text ($UNSUBSCRIBE, list_text.c) */
int
list_head_mailto(char *out, size_t outlen, const char *list, const char *domain)
{
	int n;

	n = snprintf(out, outlen, "mailto:majordomo@%s?body=unsubscribe%%20%s",
	    domain, list);
	if (n < 0 || (size_t)n >= outlen)
		return -1;
	return n;
}

/* list_head_unsub - List-Unsubscribe, with link the one-click form */
int
list_head_unsub(char *out, size_t outlen, const char *list, const char *domain,
    const char *link)
{
	char mailto[LIST_HEAD_MAILTO_MAX];
	int n;

	if (list_head_mailto(mailto, sizeof(mailto), list, domain) == -1)
		return -1;
	if (link == NULL)
		n = snprintf(out, outlen, "List-Unsubscribe: <%s>\n", mailto);
	else
		n = snprintf(out, outlen,
		    "List-Unsubscribe: <%s>,\n"
		    " <%s>\n"
		    "List-Unsubscribe-Post: List-Unsubscribe=One-Click\n",
		    link, mailto);
	if (n < 0 || (size_t)n >= outlen)
		return -1;
	return n;
}

/* list_head_write - the list's fields, as posts and digests carry them */
void
list_head_write(FILE *fp, const struct listconf *lc, const char *list,
    const char *domain, const char *msgid)
{
	char unsub[2 * (NAME_LIST_MAX + NAME_DOMAIN_MAX) + 100];

	fprintf(fp,
	    "List-Id: <%s.%s>\n"
	    "List-Post: <mailto:%s@%s>\n"
	    "List-Help: <mailto:majordomo@%s?subject=help>\n",
	    list, domain, list, domain, domain);
	/* With one-click links each copy gets its own (rcpt_head.c). */
	if (lc->unsubscribe_url[0] == '\0' &&
	    list_head_unsub(unsub, sizeof(unsub), list, domain, NULL) >= 0)
		fputs(unsub, fp);
	fprintf(fp,
	    "List-Subscribe: <mailto:majordomo@%s?body=subscribe%%20%s>\n"
	    "List-Owner: <mailto:%s-owner@%s>\n"
	    "Precedence: list\n"
	    "X-Loop: %s@%s\n",
	    domain, list, list, domain, list, domain);
	archive_url_fields(
	    fp, lc->archive_url, lc->archived_at_url, list, domain, msgid);
}
