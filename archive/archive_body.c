/*
 * archive_body.c - a post's parts for the reader.  Its text/plain parts
 * are its text; when it has none, its text/html parts are read through
 * libxml2's HTML parser and only their text kept (no script, style or
 * head; a link's address after its words: lists/html_text.c), so no
 * markup of a post reaches a page.  Every other part (and a part marked as an
 * attachment, or with a file name) is an attachment.  Transfer
 * encodings are undone (lists/cmd_mime.c), charsets become UTF-8
 * through iconv (lists/text_utf8.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_body.h"
#include "lists.h"

/* What a walk over the parts knows. */
struct archive_body_walk {
	archive_body_fn *fn;
	void *arg;
	int has_plain; /* a text/plain part is there: HTML is its twin */
	int natt;
	int r;
};

/* archive_body_utf8 - a text part's body as UTF-8 (HTML: as its text) */
static int
archive_body_utf8(
    const struct cmd_mime_part *p, int html, char **out, size_t *outlen)
{
	char charset[64], *raw, *u;
	size_t rawlen, ulen;
	struct text_utf8_note note;
	int r;

	if (cmd_mime_decoded(
		p->body, p->blen, p->cte, p->blen, &raw, &rawlen) == -1)
		return -1;
	if (cmd_mime_param(p->ct, "charset", charset, sizeof(charset)) == -1)
		snprintf(charset, sizeof(charset), "us-ascii");
	r = text_utf8(charset, raw, rawlen, &u, &ulen, &note);
	free(raw);
	if (r == -1)
		return -1;
	if (!html) {
		*out = u;
		*outlen = ulen;
		return 0;
	}
	r = html_text(u, ulen, out, outlen);
	free(u);
	return r;
}

/* archive_body_is_attachment - a part shown as an attachment; its name
 * into name */
static int
archive_body_is_attachment(
    const struct cmd_mime_part *p, char *name, size_t namelen)
{
	char disp[512];

	name[0] = '\0';
	if (header_value(p->text, p->len, "Content-Disposition", disp,
		sizeof(disp)) == -1)
		disp[0] = '\0';
	if (disp[0] != '\0' &&
	    cmd_mime_ext_param(disp, "filename", name, namelen) == -1)
		name[0] = '\0';
	if (name[0] == '\0' &&
	    cmd_mime_ext_param(p->ct, "name", name, namelen) == -1)
		name[0] = '\0';
	if (strncasecmp(disp, "attachment", 10) == 0 || name[0] != '\0')
		return 1;
	return strcmp(p->type, "text/plain") != 0 && p->type[0] != '\0' &&
	       strcmp(p->type, "text/html") != 0;
}

/* archive_body_plain - cmd_mime_each's callback: is there text/plain */
static int
archive_body_plain(void *arg, const struct cmd_mime_part *p)
{
	char name[8];

	if ((strcmp(p->type, "text/plain") == 0 || p->type[0] == '\0') &&
	    !archive_body_is_attachment(p, name, sizeof(name)))
		*(int *)arg = 1;
	return 0;
}

/* archive_body_part - cmd_mime_each's callback: one part shown */
static int
archive_body_part(void *arg, const struct cmd_mime_part *p)
{
	struct archive_body_walk *w = arg;
	struct archive_body_part bp;
	char name[256], *data;
	size_t len;
	int html;

	if (strncmp(p->type, "multipart/", 10) == 0)
		return 0;
	memset(&bp, 0, sizeof(bp));
	bp.type = p->type[0] ? p->type : "text/plain";
	if (archive_body_is_attachment(p, name, sizeof(name))) {
		if (cmd_mime_decoded(
			p->body, p->blen, p->cte, p->blen, &data, &len) == -1)
			return w->r = -1;
		bp.kind = ARCHIVE_BODY_ATTACHMENT;
		bp.n = ++w->natt;
		(void)cmd_mime_words(name, sizeof(name));
		bp.name = name;
	} else {
		html = strcmp(p->type, "text/html") == 0;
		if (html && w->has_plain)
			return 0; /* the HTML twin of a text/plain */
		if (archive_body_utf8(p, html, &data, &len) == -1)
			return w->r = -1;
		bp.kind = ARCHIVE_BODY_TEXT;
		bp.name = "";
		bp.from_html = html;
	}
	bp.data = data;
	bp.len = len;
	w->r = w->fn(w->arg, &bp);
	free(data);
	return w->r;
}

/* archive_body_each - fn on each part shown */
int
archive_body_each(const char *text, size_t len, archive_body_fn *fn, void *arg)
{
	struct archive_body_walk w = {fn, arg, 0, 0, 0};

	(void)cmd_mime_each(text, len, archive_body_plain, &w.has_plain);
	(void)cmd_mime_each(text, len, archive_body_part, &w);
	return w.r;
}

/* archive_body_join - archive_body_each's callback: text into a stream */
static int
archive_body_join(void *arg, const struct archive_body_part *bp)
{
	FILE *fp = arg;

	if (bp->kind == ARCHIVE_BODY_TEXT) {
		fwrite(bp->data, 1, bp->len, fp);
		fputc('\n', fp);
	} else {
		fputs(bp->name, fp);
		fputc('\n', fp);
	}
	return 0;
}

/* archive_body_text - the text parts joined, for the index */
int
archive_body_text(const char *text, size_t len, char **out, size_t *outlen)
{
	FILE *fp;
	int r;

	if ((fp = open_memstream(out, outlen)) == NULL)
		return -1;
	r = archive_body_each(text, len, archive_body_join, fp);
	if (fclose(fp) != 0 || r != 0) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
