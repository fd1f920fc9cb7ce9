/*
 * digest_text.c - the text of a digest issue, for each kind of reader:
 *
 * - digest (MIME): multipart/digest (RFC 2046 5.1.5), a text/plain table
 *   of contents first, then each post as a message/rfc822 part (the
 *   type a digest's parts have by default) with the header fields a
 *   reader needs and the body as it came;
 * - digest-plain (RFC 1153): one text/plain message, the table of
 *   contents, then each post's Date, From, To, Cc, Subject and
 *   Message-ID and its text in UTF-8 with its attachments named
 *   (digest_plain.c), separated by a line of 30 hyphens, and the
 *   trailer.
 *
 * On a list with one-click links (unsubscribe_url), List-Unsubscribe
 * is left to each reader's own copy, as on a post (lists/rcpt_head.c,
 * digest_expand.c).
 *
 * A post keeps its own From in both, in its entry and in the table of
 * contents: the collection holds each post as it came (digest.c), so a
 * list that rewrites the From of posts for DMARC (dmarc_mitigation)
 * still shows who wrote each one in its digests, whose own From is the
 * list's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "digest_plain.h"
#include "digest_text.h"

/* Fields a post keeps in the MIME digest; the plain one keeps the first
 * six (RFC 1153's). */
static const char *const digest_fields[] = {"Date", "From", "To", "Cc",
    "Subject", "Message-ID", "In-Reply-To", "References", "Reply-To",
    "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
    "Content-Disposition"};
#define NFIELDS_MIME (sizeof(digest_fields) / sizeof(digest_fields[0]))
#define NFIELDS_PLAIN 6

/* digest_keep - the field at p (length n) is one of the first nkeep */
static int
digest_keep(const char *p, size_t n, size_t nkeep)
{
	size_t i, k;

	for (i = 0; i < nkeep; i++) {
		k = strlen(digest_fields[i]);
		if (n > k && p[k] == ':' &&
		    strncasecmp(p, digest_fields[i], k) == 0)
			return 1;
	}
	return 0;
}

/* digest_header - the post's fields kept, each ending in a newline;
 * the body's start in *body */
static void
digest_header(
    FILE *fp, const struct digest_post *dp, size_t nkeep, const char **body)
{
	const char *hend = header_end(dp->text, dp->len), *p, *e;

	for (p = dp->text; p < hend; p = e) {
		e = header_field_end(p, hend);
		if (*p == '\n' || (*p == '\r' && e - p <= 2))
			break;
		if (!digest_keep(p, (size_t)(e - p), nkeep))
			continue;
		fwrite(p, 1, (size_t)(e - p), fp);
		if (e[-1] != '\n')
			fputc('\n', fp);
	}
	*body = hend;
	if (*body < dp->text + dp->len && **body == '\r')
		(*body)++;
	if (*body < dp->text + dp->len && **body == '\n')
		(*body)++;
}

/* digest_toc - the table of contents: "N. subject (author)" */
static void
digest_toc(FILE *fp, const struct digest_issue *di)
{
	char subj[300], from[300];
	size_t i;

	fprintf(fp, "Today's Topics:\n\n");
	for (i = 0; i < di->nposts; i++) {
		if (cmd_mime_header(di->posts[i].text, di->posts[i].len,
			"Subject", subj, sizeof(subj)) == -1)
			(void)strlcpy(subj, "(no subject)", sizeof(subj));
		if (cmd_mime_header(di->posts[i].text, di->posts[i].len, "From",
			from, sizeof(from)) == -1)
			(void)strlcpy(from, "?", sizeof(from));
		cmd_mime_words(subj);
		cmd_mime_words(from);
		fprintf(fp, "%4zu. %s (%s)\n", i + 1, subj, from);
	}
	fputc('\n', fp);
}

/* digest_head - the issue's own header, up to its Content-Type */
static void
digest_head(FILE *fp, const struct digest_issue *di, const char *kind)
{
	char date[64], msgid[2 * NAME_LIST_MAX + NAME_DOMAIN_MAX + 100];
	const char *l = di->list, *d = di->domain;
	struct tm tm;

	if (localtime_r(&di->now, &tm) == NULL ||
	    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm) == 0)
		(void)strlcpy(
		    date, "Thu, 01 Jan 1970 00:00:00 +0000", sizeof(date));
	snprintf(msgid, sizeof(msgid), "%s.%lld.%lld.%s.%08x%08x@%s", l,
	    di->volume, di->issue, kind, arc4random(), arc4random(), d);
	fprintf(fp,
	    "Date: %s\n"
	    "From: <%s-request@%s>\n"
	    "To: <%s@%s>\n"
	    "Subject: %s Digest, Vol %lld, Issue %lld\n"
	    "Message-ID: <%s>\n"
	    "List-Id: <%s.%s>\n"
	    "List-Post: <mailto:%s@%s>\n"
	    "List-Help: <mailto:majordomo@%s?subject=help>\n",
	    date, l, d, l, d, l, di->volume, di->issue, msgid, l, d, l, d, d);
	/* With one-click links each reader gets its own (rcpt_head.c). */
	if (di->lc->unsubscribe_url[0] == '\0')
		fprintf(fp,
		    "List-Unsubscribe: <mailto:majordomo@%s?body=unsubscribe"
		    "%%20%s>\n",
		    d, l);
	fprintf(fp,
	    "List-Subscribe: <mailto:majordomo@%s?body=subscribe%%20%s>\n"
	    "List-Owner: <mailto:%s-owner@%s>\n",
	    d, l, l, d);
	archive_url_fields(fp, di->lc->archive_url, "", l, d, NULL);
	fprintf(
	    fp, "Precedence: list\nX-Loop: %s@%s\nMIME-Version: 1.0\n", l, d);
}

/* digest_8bit - the text has bytes over 127 */
static int
digest_8bit(const char *p, size_t n)
{
	while (n-- > 0)
		if ((unsigned char)*p++ > 127)
			return 1;
	return 0;
}

/* digest_mime - the MIME issue's header and body */
static void
digest_mime(FILE *fp, const struct digest_issue *di, int eight)
{
	char boundary[64];
	const char *body;
	size_t i, blen;

	snprintf(boundary, sizeof(boundary), "mjq-digest-%08x%08x",
	    arc4random(), arc4random());
	digest_head(fp, di, "digest");
	fprintf(fp,
	    "Content-Type: multipart/digest; boundary=\"%s\"\n%s\n"
	    "This is a MIME digest of %zu message(s).\n\n"
	    "--%s\n"
	    "Content-Type: text/plain; charset=utf-8\n"
	    "Content-Description: Today's Topics (%zu messages)\n\n"
	    "%s Digest, Vol %lld, Issue %lld\n\n",
	    boundary, eight ? "Content-Transfer-Encoding: 8bit\n" : "",
	    di->nposts, boundary, di->nposts, di->list, di->volume, di->issue);
	digest_toc(fp, di);
	for (i = 0; i < di->nposts; i++) {
		fprintf(fp, "--%s\n\n", boundary);
		digest_header(fp, &di->posts[i], NFIELDS_MIME, &body);
		fputc('\n', fp);
		blen = (size_t)(di->posts[i].text + di->posts[i].len - body);
		fwrite(body, 1, blen, fp);
		if (blen > 0 && body[blen - 1] != '\n')
			fputc('\n', fp);
	}
	fprintf(fp, "--%s--\n", boundary);
}

/* digest_plain - the RFC 1153 issue's header and body */
static void
digest_plain(FILE *fp, const struct digest_issue *di, int eight)
{
	const char *body;
	char end[200];
	size_t i, k;

	digest_head(fp, di, "digest-plain");
	fprintf(fp, "Content-Type: text/plain; charset=utf-8\n%s\n",
	    eight ? "Content-Transfer-Encoding: 8bit\n" : "");
	fprintf(fp, "%s Digest\t\tVolume %lld : Issue %lld\n\n", di->list,
	    di->volume, di->issue);
	digest_toc(fp, di);
	fprintf(fp, "------------------------------------------------------"
		    "----------------\n\n");
	for (i = 0; i < di->nposts; i++) {
		digest_header(fp, &di->posts[i], NFIELDS_PLAIN, &body);
		fputc('\n', fp);
		digest_plain_body(fp, di->posts[i].text, di->posts[i].len);
		fprintf(fp, "\n------------------------------\n\n");
	}
	k = (size_t)snprintf(end, sizeof(end), "End of %s Digest V%lld #%lld",
	    di->list, di->volume, di->issue);
	fprintf(fp, "%s\n", end);
	for (; k > 0; k--)
		fputc('*', fp);
	fputc('\n', fp);
}

/* digest_text - the issue for readers of mode */
int
digest_text(const struct digest_issue *di, enum subs_mode mode, char **out,
    size_t *outlen)
{
	size_t i;
	int eight = 0;
	FILE *fp;

	for (i = 0; i < di->nposts && !eight; i++)
		eight = digest_8bit(di->posts[i].text, di->posts[i].len);
	*out = NULL;
	*outlen = 0;
	if ((fp = open_memstream(out, outlen)) == NULL)
		return -1;
	if (mode == SUBS_DIGEST_PLAIN)
		digest_plain(fp, di, eight);
	else
		digest_mime(fp, di, eight);
	if (fclose(fp) == EOF) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
