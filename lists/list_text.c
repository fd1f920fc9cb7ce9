/*
 * list_text.c - a text an owner keeps in the list's directory: "footer"
 * and "header" (put into each post, post_footer.c), "welcome" and
 * "goodbye" (the replies to a subscription and an unsubscription).
 * UTF-8, at most LIST_TEXT_MAX bytes, with these replaced:
 *
 *   $LIST         the list's name
 *   $DOMAIN       its domain
 *   $ARCHIVE_URL  the archive_url template with $LIST and $DOMAIN
 *                 replaced ("" when unset)
 *   $UNSUBSCRIBE  mailto:majordomo@DOMAIN?body=unsubscribe%20LIST
 *   $UNSUBSCRIBE_URL  each copy's own one-click link, in a post's footer
 *                 on a list with unsubscribe_url (list_text_load_linked:
 *                 LIST_TEXT_LINK, replaced per copy by rcpt_head.c);
 *                 elsewhere the same as $UNSUBSCRIBE
 *
 * A text that is absent is no text; one that cannot be read is an
 * error (the message waits: a list never goes out without the footer
 * its owner wrote because a disk hiccupped).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "list_head.h"
#include "list_text.h"
#include "names.h"
#include "list_path.h"

static int list_text_expand(const char *text, const struct listconf *lc,
    const char *domain, const char *list, int link, char **out);

/* list_text_defuse - a poster's text (len bytes) that carries the stem
 * of a link's mark, copied into *out (malloc, len bytes) with the US
 * byte of each such stem made '?': every reader's own link is put only
 * where the list's footer asked for it, never where a poster wrote the
 * mark.  1 copied, 0 no mark (*out NULL), -1 out of memory */
int
list_text_defuse(const char *text, size_t len, char **out)
{
	const size_t n = sizeof(LIST_TEXT_LINK_STEM) - 1;
	char *c, *p;

	*out = NULL;
	if (memmem(text, len, LIST_TEXT_LINK_STEM, n) == NULL)
		return 0;
	if ((c = malloc(len)) == NULL)
		return -1;
	memcpy(c, text, len);
	for (p = c; (p = memmem(p, (size_t)(c + len - p), LIST_TEXT_LINK_STEM,
			 n)) != NULL;
	     p += n)
		*p = '?';
	*out = c;
	return 1;
}

/* list_text_link - the last place of a copy's own link in text (len
 * bytes), LIST_TEXT_LINK or LIST_TEXT_LINK_QP (*qp says which, *mlen its
 * length), or NULL */
const char *
list_text_link(const char *text, size_t len, size_t *mlen, int *qp)
{
	const char *const marks[2] = {LIST_TEXT_LINK, LIST_TEXT_LINK_QP};
	const char *p, *at = NULL;
	size_t n;
	int i;

	for (i = 0; i < 2; i++) {
		n = strlen(marks[i]);
		for (p = text; (p = memmem(p, (size_t)(text + len - p),
				    marks[i], n)) != NULL;
		     p += n)
			if (at == NULL || p > at) {
				at = p;
				*mlen = n;
				*qp = i;
			}
	}
	return at;
}

/* list_text_qp - link (ASCII) as quoted-printable into out (4 times
 * its length and a NUL), soft line breaks (eol) keeping lines within 76
 * characters (LIST_TEXT_LINK_QP's place: a soft break follows it) */
void
list_text_qp(const char *link, const char *eol, char *out)
{
	size_t col = 0, o = 0, w;

	for (; *link != '\0'; link++) {
		w = *link == '=' ? 3 : 1;
		if (col + w > 75) {
			o += (size_t)sprintf(out + o, "=%s", eol);
			col = 0;
		}
		if (*link == '=')
			o += (size_t)sprintf(out + o, "=3D");
		else
			out[o++] = *link;
		col += w;
	}
	out[o] = '\0';
}

/* list_text_unlinked - text (len bytes) with each place of a copy's own
 * link (LIST_TEXT_LINK, LIST_TEXT_LINK_QP encoded) made the list's
 * mailto, malloc'd (its length in *outlen); NULL out of memory */
char *
list_text_unlinked(const char *text, size_t len, const char *domain,
    const char *list, size_t *outlen)
{
	size_t ml = strlen(LIST_TEXT_LINK), qml = strlen(LIST_TEXT_LINK_QP);
	const char *p = text, *q, *qq, *end = text + len;
	char mailto[LIST_HEAD_MAILTO_MAX], qp[sizeof(mailto) * 4];
	char *buf = NULL;
	FILE *fp;

	*outlen = 0;
	if (list_head_mailto(mailto, sizeof(mailto), list, domain) == -1 ||
	    (fp = open_memstream(&buf, outlen)) == NULL)
		return NULL;
	for (;;) {
		q = memmem(p, (size_t)(end - p), LIST_TEXT_LINK, ml);
		qq = memmem(p, (size_t)(end - p), LIST_TEXT_LINK_QP, qml);
		if (q == NULL && qq == NULL)
			break;
		if (q == NULL || (qq != NULL && qq < q)) {
			/* its soft break says the line end */
			list_text_qp(mailto,
			    qq + qml + 1 < end && qq[qml + 1] == '\r' ? "\r\n"
								      : "\n",
			    qp);
			fwrite(p, 1, (size_t)(qq - p), fp);
			fputs(qp, fp);
			p = qq + qml;
		} else {
			fwrite(p, 1, (size_t)(q - p), fp);
			fputs(mailto, fp);
			p = q + ml;
		}
	}
	fwrite(p, 1, (size_t)(end - p), fp);
	if (fclose(fp) == EOF) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* list_text_var - write the value of the variable at p, if one starts
 * there; its name's length, 0 when none */
static size_t
list_text_var(FILE *fp, const char *p, const struct listconf *lc,
    const char *domain, const char *list, int link)
{
	char *url, mailto[LIST_HEAD_MAILTO_MAX];
	size_t n = 12;

	if (strncmp(p, "$LIST", 5) == 0) {
		fputs(list, fp);
		return 5;
	}
	if (strncmp(p, "$DOMAIN", 7) == 0) {
		fputs(domain, fp);
		return 7;
	}
	if (strncmp(p, "$UNSUBSCRIBE_URL", 16) == 0) {
		if (link && lc->unsubscribe_url[0] != '\0') {
			fputs(LIST_TEXT_LINK, fp);
			return 16;
		}
		n = 16;
	}
	if (strncmp(p, "$UNSUBSCRIBE", 12) == 0) {
		/* fits: the list and the domain are bounded above */
		if (list_head_mailto(mailto, sizeof(mailto), list, domain) >= 0)
			fputs(mailto, fp);
		return n;
	}
	if (strncmp(p, "$ARCHIVE_URL", 12) == 0) {
		/* the template names $LIST and $DOMAIN only: no loop */
		if (strstr(lc->archive_url, "$ARCHIVE_URL") == NULL &&
		    list_text_expand(
			lc->archive_url, lc, domain, list, 0, &url) == 0) {
			fputs(url, fp);
			free(url);
		}
		return 12;
	}
	return 0;
}

/* list_text_expand - text with its variables replaced, malloc'd into
 * *out; -1 out of memory */
static int
list_text_expand(const char *text, const struct listconf *lc,
    const char *domain, const char *list, int link, char **out)
{
	const char *p;
	size_t size = 0, n;
	FILE *fp;

	*out = NULL;
	if ((fp = open_memstream(out, &size)) == NULL)
		return -1;
	for (p = text; *p != '\0'; p++) {
		if (*p == '$' &&
		    (n = list_text_var(fp, p, lc, domain, list, link)) > 0)
			p += n - 1;
		else
			fputc(*p, fp);
	}
	if (fclose(fp) == EOF) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* list_text_read - the list's text called file, its variables replaced
 * ($UNSUBSCRIBE_URL by LIST_TEXT_LINK when link), into *out (malloc'd;
 * NULL when the list has none); -1 with err when it cannot be read, is
 * too long or holds a NUL */
static int
list_text_read(const struct settings *s, const struct listconf *lc,
    const char *domain, const char *list, const char *file, int link,
    char **out, char *err, size_t errlen)
{
	char path[PATH_MAX], *buf;
	size_t n;
	FILE *fp;
	int r = -1;

	*out = NULL;
	if (list_path(path, sizeof(path), s, domain, list, file) == -1) {
		snprintf(err, errlen, "%s: path too long", file);
		return -1;
	}
	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((buf = malloc(LIST_TEXT_MAX + 2)) == NULL) {
		fclose(fp);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	n = fread(buf, 1, LIST_TEXT_MAX + 1, fp);
	if (ferror(fp))
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else if (n > LIST_TEXT_MAX)
		snprintf(err, errlen, "%s: longer than %d bytes", path,
		    LIST_TEXT_MAX);
	else if (memchr(buf, '\0', n) != NULL)
		snprintf(err, errlen, "%s: holds a NUL byte", path);
	else
		r = 0;
	fclose(fp);
	buf[n] = '\0';
	if (r == 0 && n > 0 &&
	    list_text_expand(buf, lc, domain, list, link, out) == -1) {
		snprintf(err, errlen, "%s: out of memory", path);
		r = -1;
	}
	free(buf);
	return r;
}

/* list_text_load - the text called file, $UNSUBSCRIBE_URL the mailto */
int
list_text_load(const struct settings *s, const struct listconf *lc,
    const char *domain, const char *list, const char *file, char **out,
    char *err, size_t errlen)
{
	return list_text_read(s, lc, domain, list, file, 0, out, err, errlen);
}

/* list_text_load_linked - the text called file, $UNSUBSCRIBE_URL left for
 * each copy's own link (LIST_TEXT_LINK) on a list with one-click links */
int
list_text_load_linked(const struct settings *s, const struct listconf *lc,
    const char *domain, const char *list, const char *file, char **out,
    char *err, size_t errlen)
{
	return list_text_read(s, lc, domain, list, file, 1, out, err, errlen);
}
