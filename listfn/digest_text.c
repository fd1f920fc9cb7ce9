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
 * The list's footer text (list_text.c) ends each issue once, not each
 * post: the MIME issue's last part, the plain one's last entry.  The
 * posts are as they came (digest.c collects them before any footer).
 *
 * Both tables of contents are UTF-8 text (charset=utf-8), as are the
 * plain digest's entries: a Subject or From in RFC 2047 encoded-words
 * is shown decoded, each word from its own charset
 * (lists/cmd_mime_words.c).  A part or message whose text has bytes
 * over 127 says "Content-Transfer-Encoding: 8bit".
 *
 * On a list with one-click links (unsubscribe_url), List-Unsubscribe
 * is left to each reader's own copy, as on a post (lists/rcpt_head.c,
 * digest_copy.c).
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

/* digest_header - the post's fields kept, each ending in a newline (in
 * the plain digest, as one line of UTF-8 text: digest_plain_field); the
 * body's start in *body */
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
		if (nkeep == NFIELDS_PLAIN) {
			digest_plain_field(fp, p, (size_t)(e - p));
			continue;
		}
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

/* digest_toc_field - the field name of the post as UTF-8 text in out,
 * its encoded-words decoded from their charsets; dflt when it has none */
static void
digest_toc_field(const struct digest_post *dp, const char *name,
    const char *dflt, char *out, size_t outlen)
{
	char *p;

	if (header_value(dp->text, dp->len, name, out, outlen) == -1)
		(void)strlcpy(out, dflt, outlen);
	else if (cmd_mime_words(out, outlen) == -1)
		for (p = out; *p != '\0'; p++) /* out of memory: ASCII */
			if ((unsigned char)*p > 127)
				*p = '?';
}

/* digest_toc - the table of contents, "N. subject (author)", in UTF-8
 * (malloc'd in *toc); 0 or -1 */
static int
digest_toc(const struct digest_issue *di, char **toc, size_t *toclen)
{
	char subj[1024], from[1024];
	size_t i;
	FILE *fp;

	if ((fp = open_memstream(toc, toclen)) == NULL)
		return -1;
	fprintf(fp, "Today's Topics:\n\n");
	for (i = 0; i < di->nposts; i++) {
		digest_toc_field(&di->posts[i], "Subject", "(no subject)", subj,
		    sizeof(subj));
		digest_toc_field(
		    &di->posts[i], "From", "?", from, sizeof(from));
		fprintf(fp, "%4zu. %s (%s)\n", i + 1, subj, from);
	}
	fputc('\n', fp);
	if (fclose(fp) == EOF) {
		free(*toc);
		*toc = NULL;
		return -1;
	}
	return 0;
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
	    "Message-ID: <%s>\n",
	    date, l, d, l, d, l, di->volume, di->issue, msgid);
	list_head_write(fp, di->lc, l, d, NULL);
	fputs("MIME-Version: 1.0\n", fp);
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

/* digest_mime - the MIME issue's body: the table of contents toc
 * (toclen bytes) in a text/plain part, then each post as it came */
static void
digest_mime(FILE *fp, const struct digest_issue *di, const char *boundary,
    const char *toc, size_t toclen)
{
	const char *body;
	size_t i, blen, n;
	char *part;

	fprintf(fp,
	    "This is a MIME digest of %zu message(s).\n\n"
	    "--%s\n"
	    "Content-Type: text/plain; charset=utf-8\n%s"
	    "Content-Description: Today's Topics (%zu messages)\n\n"
	    "%s Digest, Vol %lld, Issue %lld\n\n",
	    di->nposts, boundary,
	    digest_8bit(toc, toclen) ? "Content-Transfer-Encoding: 8bit\n" : "",
	    di->nposts, di->list, di->volume, di->issue);
	fwrite(toc, 1, toclen, fp);
	for (i = 0; i < di->nposts; i++) {
		fprintf(fp, "--%s\n\n", boundary);
		digest_header(fp, &di->posts[i], NFIELDS_MIME, &body);
		fputc('\n', fp);
		blen = (size_t)(di->posts[i].text + di->posts[i].len - body);
		fwrite(body, 1, blen, fp);
		if (blen > 0 && body[blen - 1] != '\n')
			fputc('\n', fp);
	}
	if (di->foot != NULL &&
	    post_footer_part(&part, &n, boundary, di->foot, "\n") == 0) {
		fwrite(part, 1, n, fp);
		free(part);
	}
	fprintf(fp, "--%s--\n", boundary);
}

/* digest_plain - the RFC 1153 issue's body, UTF-8 text: the table of
 * contents toc (toclen bytes), each post's entry, the trailer */
static void
digest_plain(
    FILE *fp, const struct digest_issue *di, const char *toc, size_t toclen)
{
	const char *body;
	char end[200];
	size_t i, k;

	fprintf(fp, "%s Digest\t\tVolume %lld : Issue %lld\n\n", di->list,
	    di->volume, di->issue);
	fwrite(toc, 1, toclen, fp);
	fprintf(fp, "------------------------------------------------------"
		    "----------------\n\n");
	for (i = 0; i < di->nposts; i++) {
		digest_header(fp, &di->posts[i], NFIELDS_PLAIN, &body);
		fputc('\n', fp);
		digest_plain_body(fp, di->posts[i].text, di->posts[i].len);
		fprintf(fp, "\n------------------------------\n\n");
	}
	if (di->foot != NULL) {
		fputs(di->foot, fp);
		if (di->foot[0] != '\0' &&
		    di->foot[strlen(di->foot) - 1] != '\n')
			fputc('\n', fp);
		fprintf(fp, "\n------------------------------\n\n");
	}
	k = (size_t)snprintf(end, sizeof(end), "End of %s Digest V%lld #%lld",
	    di->list, di->volume, di->issue);
	fprintf(fp, "%s\n", end);
	for (; k > 0; k--)
		fputc('*', fp);
	fputc('\n', fp);
}

/* digest_body - the body of the issue for readers of mode (malloc'd in
 * *body); its multipart boundary when MIME; 0 or -1 */
static int
digest_body(const struct digest_issue *di, enum subs_mode mode,
    const char *boundary, char **body, size_t *blen)
{
	char *toc = NULL;
	size_t toclen = 0;
	FILE *fp;
	int r = 0;

	if (digest_toc(di, &toc, &toclen) == -1)
		return -1;
	if ((fp = open_memstream(body, blen)) == NULL) {
		free(toc);
		return -1;
	}
	if (mode == SUBS_DIGEST_PLAIN)
		digest_plain(fp, di, toc, toclen);
	else
		digest_mime(fp, di, boundary, toc, toclen);
	if (fclose(fp) == EOF) {
		free(*body);
		*body = NULL;
		r = -1;
	}
	free(toc);
	return r;
}

/* digest_text - the issue for readers of mode: its header, with a
 * transfer encoding of 8bit when its body (posts as they came, text
 * decoded into UTF-8) has bytes over 127, then its body */
int
digest_text(const struct digest_issue *di, enum subs_mode mode, char **out,
    size_t *outlen)
{
	char boundary[64], *body = NULL;
	size_t blen = 0;
	FILE *fp;

	*out = NULL;
	*outlen = 0;
	snprintf(boundary, sizeof(boundary), "mjq-digest-%08x%08x",
	    arc4random(), arc4random());
	if (digest_body(di, mode, boundary, &body, &blen) == -1)
		return -1;
	if ((fp = open_memstream(out, outlen)) == NULL) {
		free(body);
		return -1;
	}
	digest_head(
	    fp, di, mode == SUBS_DIGEST_PLAIN ? "digest-plain" : "digest");
	if (mode == SUBS_DIGEST_PLAIN)
		fprintf(fp, "Content-Type: text/plain; charset=utf-8\n");
	else
		fprintf(fp, "Content-Type: multipart/digest; boundary=\"%s\"\n",
		    boundary);
	fprintf(fp, "%s\n",
	    digest_8bit(body, blen) ? "Content-Transfer-Encoding: 8bit\n" : "");
	fwrite(body, 1, blen, fp);
	free(body);
	if (fclose(fp) == EOF) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
