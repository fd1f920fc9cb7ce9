/*
 * post_footer.c - a list's header and footer texts (UTF-8) put into a
 * post, as Mailman's msg_header and msg_footer are, MIME-aware:
 *
 * - a text/plain post (or one without a Content-Type) gets them in its
 *   own body, in its charset (converted with iconv) and its transfer
 *   encoding: a quoted-printable or base64 body is decoded, extended
 *   and encoded again;
 * - any other post, and a text/plain one whose charset cannot carry
 *   the texts (or whose 7bit encoding cannot carry 8-bit text), is
 *   wrapped in multipart/mixed: the header text as the first part, the
 *   post (its Content-* fields and its body) as it came, the footer as
 *   the last part, each text text/plain; charset=utf-8;
 * - a signed or encrypted post (multipart/signed, multipart/encrypted,
 *   S/MIME's application/pkcs7-mime) is never altered.
 *
 * The place of each copy's own one-click link (LIST_TEXT_LINK) stays in
 * a 7bit or 8bit body and in a footer part, where a link is written as
 * it is, and in a quoted-printable body between soft line breaks, where
 * it is written encoded; a base64 body is encoded once for every copy,
 * so it gets the list's mailto there instead.
 *
 * Pure code: the texts are read and their variables replaced by the
 * caller (list_text.c).
 */
#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd_mime.h"
#include "header.h"
#include "list_text.h"
#include "mime_encode.h"
#include "post_footer.h"

/* Types whose body a list never touches: a signature or an encryption
 * covers it. */
static const char *const post_footer_sealed_types[] = {
    "multipart/signed",
    "multipart/encrypted",
    "application/pkcs7-mime",
    "application/x-pkcs7-mime",
};

/* post_footer_type - the lower-case type/subtype of the post, "" when it
 * has no Content-Type */
static void
post_footer_type(const char *text, size_t len, char *ct, size_t ctlen,
    char *type, size_t typelen)
{
	size_t i;

	if (header_value(text, len, "Content-Type", ct, ctlen) == -1)
		ct[0] = '\0';
	for (i = 0;
	     ct[i] != '\0' && ct[i] != ';' && ct[i] != ' ' && i + 1 < typelen;
	     i++)
		type[i] = (char)tolower((unsigned char)ct[i]);
	type[i] = '\0';
}

/* post_footer_sealed - the post is signed or encrypted: never altered */
int
post_footer_sealed(const char *text, size_t len)
{
	char ct[256], type[64];
	size_t i;

	post_footer_type(text, len, ct, sizeof(ct), type, sizeof(type));
	for (i = 0; i < sizeof(post_footer_sealed_types) /
			    sizeof(post_footer_sealed_types[0]);
	     i++)
		if (strcmp(type, post_footer_sealed_types[i]) == 0)
			return 1;
	return 0;
}

/* post_footer_moves - the header field at p (length n) describes the
 * post's content: it goes inside when the post is wrapped */
int
post_footer_moves(const char *p, size_t n)
{
	return (n > 8 && strncasecmp(p, "Content-", 8) == 0) ||
	       (n > 13 && strncasecmp(p, "MIME-Version:", 13) == 0);
}

/* post_footer_8bit - the text has a byte over 127 */
static int
post_footer_8bit(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] > 127)
			return 1;
	return 0;
}

/* post_footer_lines - text with its line ends made eol, ended with one */
static void
post_footer_lines(FILE *fp, const char *text, const char *eol)
{
	const char *p = text, *nl;
	size_t n;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		n = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		fwrite(p, 1, n, fp);
		fputs(eol, fp);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

/* post_footer_conv - text (UTF-8) in charset, malloc'd; -1 when the
 * charset is unknown or cannot carry it */
static int
post_footer_conv(const char *charset, const char *text, char **out)
{
	size_t il = strlen(text), ol = il * 4 + 16;
	char *ip = (char *)(uintptr_t)text, *op;
	iconv_t cd;
	int r = 0;

	if (charset[0] == '\0' || strcasecmp(charset, "us-ascii") == 0 ||
	    strcasecmp(charset, "utf-8") == 0 ||
	    strcasecmp(charset, "utf8") == 0) {
		if (tolower((unsigned char)charset[0]) != 'u' ||
		    tolower((unsigned char)charset[1]) != 't')
			if (post_footer_8bit(text, il))
				return -1; /* ASCII cannot carry it */
		return (*out = strdup(text)) != NULL ? 0 : -1;
	}
	if ((cd = iconv_open(charset, "UTF-8")) == (iconv_t)-1)
		return -1;
	if ((*out = op = calloc(1, ol + 1)) == NULL) {
		iconv_close(cd);
		return -1;
	}
	if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1 ||
	    iconv(cd, NULL, NULL, &op, &ol) == (size_t)-1)
		r = -1;
	iconv_close(cd);
	if (r == -1 || memchr(*out, '\0', (size_t)(op - *out)) != NULL) {
		free(*out); /* a charset with NULs (UTF-16) is not text */
		*out = NULL;
		return -1;
	}
	return 0;
}

/* The texts of a text/plain post, in its charset; NULL when absent. */
struct post_footer_texts {
	char *head, *foot;
};

/* post_footer_qp - a body (len bytes) encoded quoted-printable, the
 * place of each copy's own link (the last LIST_TEXT_LINK) kept as
 * LIST_TEXT_LINK_QP on a line of its own between soft line breaks, so
 * each copy's link goes there encoded (rcpt_head.c) */
static void
post_footer_qp(FILE *fp, const char *body, size_t len, const char *eol)
{
	size_t ml = strlen(LIST_TEXT_LINK);
	const char *p, *at = NULL;

	for (p = body; (p = memmem(p, (size_t)(body + len - p), LIST_TEXT_LINK,
			    ml)) != NULL;
	     p += ml)
		at = p;
	if (at == NULL) {
		mime_encode_qp(fp, body, len, eol);
		return;
	}
	mime_encode_qp(fp, body, (size_t)(at - body), eol);
	if (at > body && at[-1] != '\n')
		fprintf(fp, "=%s", eol);
	fprintf(fp, "%s=%s", LIST_TEXT_LINK_QP, eol);
	mime_encode_qp(fp, at + ml, (size_t)(body + len - at - ml), eol);
}

/* post_footer_inline - a text/plain body extended in place (its charset
 * and encoding); 1 done, 0 it must be wrapped instead, -1 no memory */
static int
post_footer_inline(const char *body, size_t blen, const char *cte,
    const struct post_footer_texts *t, const char *eol, struct post_footer *out)
{
	int qp = strcasecmp(cte, "quoted-printable") == 0;
	int b64 = strcasecmp(cte, "base64") == 0;
	int bit7 = cte[0] == '\0' || strcasecmp(cte, "7bit") == 0;
	char *dec = NULL, *buf = NULL;
	const char *beol = eol;
	size_t dlen = blen, size = 0;
	FILE *fp;

	if (!qp && !b64 && !bit7 && strcasecmp(cte, "8bit") != 0 &&
	    strcasecmp(cte, "binary") != 0)
		return 0; /* an encoding we do not know */
	if (bit7 &&
	    ((t->head != NULL && post_footer_8bit(t->head, strlen(t->head))) ||
		(t->foot != NULL &&
		    post_footer_8bit(t->foot, strlen(t->foot)))))
		return 0;
	if ((qp || b64) &&
	    cmd_mime_decoded(body, blen, cte, blen, &dec, &dlen) == -1)
		return -1;
	if (dec != NULL) {
		body = dec;
		beol = memmem(dec, dlen, "\r\n", 2) != NULL ? "\r\n" : "\n";
		if (qp)
			beol = "\n"; /* mime_encode_qp makes each eol */
	}
	if ((fp = open_memstream(&buf, &size)) == NULL) {
		free(dec);
		return -1;
	}
	if (t->head != NULL)
		post_footer_lines(fp, t->head, beol);
	fwrite(body, 1, dlen, fp);
	if (dlen > 0 && body[dlen - 1] != '\n')
		fputs(beol, fp);
	if (t->foot != NULL)
		post_footer_lines(fp, t->foot, beol);
	free(dec);
	if (fclose(fp) == EOF) {
		free(buf);
		return -1;
	}
	if (!qp && !b64) {
		out->body = buf;
		out->blen = size;
		return 1;
	}
	dec = buf, dlen = size, buf = NULL, size = 0;
	if ((fp = open_memstream(&buf, &size)) == NULL) {
		free(dec);
		return -1;
	}
	if (qp)
		post_footer_qp(fp, dec, dlen, eol);
	else
		mime_encode_b64(fp, dec, dlen, eol);
	free(dec);
	if (fclose(fp) == EOF) {
		free(buf);
		return -1;
	}
	out->body = buf;
	out->blen = size;
	return 1;
}

/* post_footer_part - a text (UTF-8) as a text/plain part after the
 * delimiter of boundary, into *out (malloc'd) */
int
post_footer_part(char **out, size_t *outlen, const char *boundary,
    const char *text, const char *eol)
{
	FILE *fp;

	*out = NULL;
	if ((fp = open_memstream(out, outlen)) == NULL)
		return -1;
	fprintf(fp,
	    "--%s%sContent-Type: text/plain; charset=utf-8%s"
	    "Content-Transfer-Encoding: %s%sContent-Disposition: inline%s%s",
	    boundary, eol, eol,
	    post_footer_8bit(text, strlen(text)) ? "8bit" : "7bit", eol, eol,
	    eol);
	post_footer_lines(fp, text, eol);
	fputs(eol, fp); /* the line end before a delimiter is the delimiter's */
	if (fclose(fp) == EOF) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* post_footer_put_part - post_footer_part written to fp */
static int
post_footer_put_part(
    FILE *fp, const char *boundary, const char *text, const char *eol)
{
	char *part;
	size_t n;

	if (text == NULL)
		return 0;
	if (post_footer_part(&part, &n, boundary, text, eol) == -1)
		return -1;
	fwrite(part, 1, n, fp);
	free(part);
	return 0;
}

/* post_footer_wrap - the post as the middle part of a multipart/mixed
 * between the texts: its content fields and body inside */
static int
post_footer_wrap(const char *text, const char *hend, const char *end,
    const char *cte, const char *head, const char *foot, const char *eol,
    struct post_footer *out)
{
	char boundary[48], *buf = NULL;
	const char *p, *e, *body = hend;
	size_t size = 0;
	FILE *fp;
	int eight;

	snprintf(boundary, sizeof(boundary), "mjq-footer-%08x%08x",
	    arc4random(), arc4random());
	if ((fp = open_memstream(&buf, &size)) == NULL)
		return -1;
	if (post_footer_put_part(fp, boundary, head, eol) == -1)
		goto fail;
	fprintf(fp, "--%s%s", boundary, eol);
	for (p = text; p < hend; p = e) {
		e = header_field_end(p, hend);
		if (*p == '\n' || (*p == '\r' && e - p <= 2)) {
			body = e; /* the empty line */
			break;
		}
		if (post_footer_moves(p, (size_t)(e - p)) &&
		    strncasecmp(p, "MIME-Version:", 13) != 0)
			fwrite(p, 1, (size_t)(e - p), fp);
	}
	fputs(eol, fp);
	fwrite(body, 1, (size_t)(end - body), fp);
	if (end > body && end[-1] != '\n')
		fputs(eol, fp);
	/* the line end before a delimiter is the delimiter's */
	fputs(eol, fp);
	if (post_footer_put_part(fp, boundary, foot, eol) == -1)
		goto fail;
	fprintf(fp, "--%s--%s", boundary, eol);
	if (fclose(fp) == EOF) {
		free(buf);
		return -1;
	}
	eight = strcasecmp(cte, "8bit") == 0 ||
		strcasecmp(cte, "binary") == 0 ||
		(head != NULL && post_footer_8bit(head, strlen(head))) ||
		(foot != NULL && post_footer_8bit(foot, strlen(foot)));
	snprintf(out->fields, sizeof(out->fields),
	    "MIME-Version: 1.0%sContent-Type: multipart/mixed; "
	    "boundary=\"%s\"%s%s%s%s",
	    eol, boundary, eol, eight ? "Content-Transfer-Encoding: " : "",
	    !eight			     ? ""
	    : strcasecmp(cte, "binary") == 0 ? "binary"
					     : "8bit",
	    eight ? eol : "");
	out->body = buf;
	out->blen = size;
	out->wrap = 1;
	return 0;
fail:
	fclose(fp);
	free(buf);
	return -1;
}

/* post_footer_make - the post (text, len: header and body) of list@domain
 * with head above its text and foot below (either NULL), as out says, the
 * list's mailto in place of each copy's own link where a copy cannot
 * have one; 0, or -1 out of memory */
int
post_footer_make(const char *text, size_t len, const char *head,
    const char *foot, const char *domain, const char *list,
    struct post_footer *out)
{
	const char *hend = header_end(text, len), *eol;
	char ct[256], type[64], cte[64], charset[64];
	struct post_footer_texts t = {NULL, NULL};
	const char *orig = foot;
	char *plain;
	size_t n;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if ((head == NULL && foot == NULL) || post_footer_sealed(text, len))
		return 0;
	eol =
	    hend > text && hend - text >= 2 && hend[-2] == '\r' ? "\r\n" : "\n";
	post_footer_type(text, len, ct, sizeof(ct), type, sizeof(type));
	if (header_value(
		text, len, "Content-Transfer-Encoding", cte, sizeof(cte)) == -1)
		cte[0] = '\0';
	if (type[0] == '\0' || strcmp(type, "text/plain") == 0) {
		if (cmd_mime_param(ct, "charset", charset, sizeof(charset)) ==
		    -1)
			charset[0] = '\0';
		plain = foot != NULL && strstr(foot, LIST_TEXT_LINK) != NULL &&
				strcasecmp(cte, "base64") == 0
			    ? list_text_unlinked(/* its NUL too */
				  foot, strlen(foot) + 1, domain, list, &n)
			    : NULL;
		if (plain != NULL)
			foot = plain;
		if ((head == NULL ||
			post_footer_conv(charset, head, &t.head) == 0) &&
		    (foot == NULL ||
			post_footer_conv(charset, foot, &t.foot) == 0))
			r = post_footer_inline(hend,
			    (size_t)(text + len - hend), cte, &t, eol, out);
		free(t.head);
		free(t.foot);
		if (plain != NULL)
			foot = orig;
		free(plain);
		if (r != 0)
			return r == 1 ? 0 : -1;
	}
	return post_footer_wrap(
	    text, hend, text + len, cte, head, foot, eol, out);
}

/* post_footer_free - let the new body go */
void
post_footer_free(struct post_footer *f)
{
	free(f->body);
	f->body = NULL;
}
