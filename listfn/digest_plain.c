/*
 * digest_plain.c - a post's text in an RFC 1153 digest, a text/plain
 * message in UTF-8: its first text/plain part, decoded from its transfer
 * encoding and converted from its charset (lists/text_utf8.c: bytes not
 * valid in it become U+FFFD, an unknown charset is read as UTF-8, and a
 * note after the text says so); then each other part it has, but its
 * text/html twin, named on a line of its own:
 *
 *     [attachment: report.pdf, application/pdf]
 *
 * The name is taken in any of its forms (lists/cmd_mime_ext.c): RFC 2231
 * (filename*=utf-8''na%C3%AFve.pdf, or continued in filename*0*=,
 * filename*1*=, ...), RFC 2047 words, or plain.  An entry's header
 * fields are one line of UTF-8 text each, their encoded-words decoded
 * (digest_plain_field).  A line of 30 hyphens (the digest's separator)
 * gets a blank in front.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "digest_plain.h"
#include "lists.h"

#define DIGEST_PLAIN_MAX (1 << 20) /* text taken from one post */

/* The part an entry shows. */
struct digest_plain_text {
	struct cmd_mime_part found;
	int have;
};

/* digest_plain_is_text - cmd_mime_each's callback: the first
 * text/plain part (a part without a type is one) */
static int
digest_plain_is_text(void *arg, const struct cmd_mime_part *p)
{
	struct digest_plain_text *t = arg;

	if (strcmp(p->type, "text/plain") != 0 && p->type[0] != '\0')
		return 0;
	t->found = *p;
	t->have = 1;
	return 1;
}

/* digest_plain_clean - s with its control bytes made '?' */
static void
digest_plain_clean(char *s)
{
	for (; *s != '\0'; s++)
		if (iscntrl((unsigned char)*s))
			*s = '?';
}

/* digest_plain_lines - text written, a separator line made safe */
static void
digest_plain_lines(FILE *fp, const char *text, size_t len)
{
	const char *p, *nl;

	for (p = text; p < text + len; p = nl) {
		if ((nl = memchr(p, '\n', (size_t)(text + len - p))) == NULL)
			nl = text + len;
		else
			nl++;
		if (strncmp(p, "------------------------------", 30) == 0)
			fputc(' ', fp);
		fwrite(p, 1, (size_t)(nl - p), fp);
	}
	if (len > 0 && text[len - 1] != '\n')
		fputc('\n', fp);
}

/* digest_plain_text - the part p's text in UTF-8, and the note on it */
static void
digest_plain_text(FILE *fp, const struct cmd_mime_part *p)
{
	struct text_utf8_note note;
	char charset[64] = "", *raw = NULL, *text = NULL;
	size_t rawlen = 0, len = 0;

	if (cmd_mime_param(p->ct, "charset", charset, sizeof(charset)) == -1)
		charset[0] = '\0';
	digest_plain_clean(charset);
	if (cmd_mime_decoded(p->body, p->blen, p->cte, DIGEST_PLAIN_MAX, &raw,
		&rawlen) == -1 ||
	    text_utf8(charset, raw, rawlen, &text, &len, &note) == -1) {
		fprintf(fp, "[This message's text could not be read: out of "
			    "memory.]\n");
		free(raw);
		return;
	}
	if (len == 0)
		fprintf(fp, "[This message has no plain text.]\n");
	digest_plain_lines(fp, text, len);
	if (note.unknown)
		fprintf(fp,
		    "[The charset \"%s\" is unknown here: the text is "
		    "read as UTF-8.]\n",
		    charset);
	if (note.replaced > 0)
		fprintf(fp,
		    "[%zu byte(s) not valid in %s replaced with "
		    "U+FFFD.]\n",
		    note.replaced,
		    note.unknown || charset[0] == '\0' ? "UTF-8" : charset);
	free(raw);
	free(text);
}

/* digest_plain_name - the name of the part p (RFC 2231 or RFC 2047
 * encoded, in Content-Disposition or Content-Type) as UTF-8 text in
 * name; 0 found, -1 none, -2 out of memory */
static int
digest_plain_name(const struct cmd_mime_part *p, char *name, size_t size)
{
	char v[1024];
	int r = -1;

	if (header_value(
		p->text, p->len, "Content-Disposition", v, sizeof(v)) == 0)
		r = cmd_mime_ext_param(v, "filename", name, size);
	if (r == -1 &&
	    header_value(p->text, p->len, "Content-Type", v, sizeof(v)) == 0)
		r = cmd_mime_ext_param(v, "name", name, size);
	return r;
}

/* digest_plain_attachment - cmd_mime_each's callback: a part that is
 * neither a multipart nor the text shown (arg) nor an unnamed text/html
 * (a multipart/alternative's twin), named */
static int
digest_plain_attachment(void *arg, const struct cmd_mime_part *p)
{
	struct digest_plain_text *t = ((void **)arg)[0];
	FILE *fp = ((void **)arg)[1];
	char name[1024];
	int r;

	if (strncmp(p->type, "multipart/", 10) == 0 ||
	    (t->have && p->text == t->found.text))
		return 0;
	if ((r = digest_plain_name(p, name, sizeof(name))) == -2)
		return -1;
	if (r == -1) {
		if (strcmp(p->type, "text/html") == 0)
			return 0;
		(void)strlcpy(name, "unnamed", sizeof(name));
	}
	digest_plain_clean(name);
	fprintf(fp, "[attachment: %s, %s]\n", name,
	    p->type[0] != '\0' ? p->type : "text/plain");
	return 0;
}

/* digest_plain_raw - a header field (n bytes at p) as it is */
static void
digest_plain_raw(FILE *fp, const char *p, size_t n)
{
	fwrite(p, 1, n, fp);
	if (n > 0 && p[n - 1] != '\n')
		fputc('\n', fp);
}

/* digest_plain_field - a header field of the post (n bytes at p, its
 * folds in) as one line of UTF-8 text, its encoded-words decoded; as it
 * is, when out of memory */
void
digest_plain_field(FILE *fp, const char *p, size_t n)
{
	const char *colon = memchr(p, ':', n), *q;
	size_t size = 3 * n + 16, k = 0;
	char *v, *b;

	if (colon == NULL || (v = malloc(size)) == NULL) {
		digest_plain_raw(fp, p, n);
		return;
	}
	for (q = colon + 1; q < p + n; q++)
		if (*q != '\r' && *q != '\n')
			v[k++] = *q == '\t' ? ' ' : *q;
	while (k > 0 && v[k - 1] == ' ')
		k--;
	v[k] = '\0';
	for (b = v; *b == ' '; b++)
		;
	if (cmd_mime_words(b, size - (size_t)(b - v)) == -1)
		digest_plain_raw(fp, p, n);
	else {
		digest_plain_clean(b);
		fprintf(fp, "%.*s: %s\n", (int)(colon - p), p, b);
	}
	free(v);
}

/* digest_plain_body - the entry of the post text (len bytes) */
void
digest_plain_body(FILE *fp, const char *text, size_t len)
{
	struct digest_plain_text t;
	void *arg[2] = {&t, fp};

	memset(&t, 0, sizeof(t));
	if (cmd_mime_each(text, len, digest_plain_is_text, &t) == 1)
		digest_plain_text(fp, &t.found);
	else
		fprintf(fp, "[This message has no plain text.]\n");
	(void)cmd_mime_each(text, len, digest_plain_attachment, arg);
}
