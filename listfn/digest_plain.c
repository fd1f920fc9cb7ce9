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
 * A line of 30 hyphens (the digest's separator) gets a blank in front.
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

/* digest_plain_attachment - cmd_mime_each's callback: a part that is
 * neither a multipart nor the text shown (arg) nor an unnamed text/html
 * (a multipart/alternative's twin), named */
static int
digest_plain_attachment(void *arg, const struct cmd_mime_part *p)
{
	struct digest_plain_text *t = ((void **)arg)[0];
	FILE *fp = ((void **)arg)[1];
	char disp[256], name[256], *u = NULL;
	struct text_utf8_note note;
	size_t ulen;

	if (strncmp(p->type, "multipart/", 10) == 0 ||
	    (t->have && p->text == t->found.text))
		return 0;
	if ((cmd_mime_header(p->text, p->len, "Content-Disposition", disp,
		 sizeof(disp)) == -1 ||
		cmd_mime_param(disp, "filename", name, sizeof(name)) == -1) &&
	    cmd_mime_param(p->ct, "name", name, sizeof(name)) == -1) {
		if (strcmp(p->type, "text/html") == 0)
			return 0;
		(void)strlcpy(name, "unnamed", sizeof(name));
	}
	cmd_mime_words(name);
	digest_plain_clean(name);
	/* an encoded-word's charset is not kept: what is not UTF-8 goes */
	if (text_utf8("", name, strlen(name), &u, &ulen, &note) == -1)
		return -1;
	fprintf(fp, "[attachment: %s, %s]\n", u,
	    p->type[0] != '\0' ? p->type : "text/plain");
	free(u);
	return 0;
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
