/*
 * archive_body.h - the parts of a post as the archive shows them
 * (archive_body.c): its text, UTF-8 (text/plain parts; an HTML-only
 * post's HTML as text), and its attachments.
 */
#ifndef MJQ_ARCHIVE_BODY_H
#define MJQ_ARCHIVE_BODY_H

#include <stddef.h>

/* What a part is to the reader. */
enum archive_body_kind { ARCHIVE_BODY_TEXT, ARCHIVE_BODY_ATTACHMENT };

/* One part shown, decoded: text in UTF-8, an attachment as its bytes. */
struct archive_body_part {
	enum archive_body_kind kind;
	int n;		  /* attachments: 1, 2, ... in order */
	const char *name; /* an attachment's file name (UTF-8), or "" */
	const char *type; /* its declared type/subtype */
	const char *data; /* the text, or the attachment's bytes */
	size_t len;
	int from_html; /* the text was HTML */
};

/* archive_body_fn - called on each part shown; non-zero stops */
typedef int archive_body_fn(void *arg, const struct archive_body_part *bp);

/* archive_body_each - fn on the post's parts in order; 0, -1 when out
 * of memory, or what fn returned */
int archive_body_each(
    const char *text, size_t len, archive_body_fn *fn, void *arg);
/* archive_body_text - the post's text parts joined (for the index),
 * malloc'd in *out; 0 or -1 */
int archive_body_text(const char *text, size_t len, char **out, size_t *outlen);

#endif
