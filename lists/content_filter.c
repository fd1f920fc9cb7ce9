/*
 * content_filter.c - a list's content filter (Mailman's filter_content),
 * on with [list] content_filter = yes:
 *
 * - a leaf part whose type is in filter_types, or not in pass_types when
 *   that is set, is refused: filter_action says whether it is replaced
 *   by a short text/plain note (remove), or the post is held or
 *   rejected (content_filter_judge, at the posting rules);
 * - collapse_alternatives = yes: a multipart/alternative becomes its
 *   text/plain part;
 * - convert_html = yes: an HTML-only post becomes text/plain, read by
 *   libxml2's HTML parser (html_text.c, as the archive reads it).
 *
 * Multiparts are walked to CONTENT_FILTER_DEPTH; deeper ones, and a
 * multipart without a boundary, are left as they are.  A signed or
 * encrypted post is never altered (post_footer_sealed).  Types are
 * type/subtype, type/ and a star, or type; any case; blanks or commas
 * between.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd_mime.h"
#include "cmd_mime_ext.h"
#include "content_filter.h"
#include "header.h"
#include "html_text.h"
#include "mime_encode.h"
#include "post_footer.h"
#include "posting_conf.h"
#include "text_utf8.h"

#define CONTENT_FILTER_DEPTH 8

/* A walk over a post. */
struct cf {
	const struct listconf *lc;
	int apply;	 /* write the filtered post */
	size_t refused;	 /* refused parts met */
	char first[128]; /* the first one's type */
};

/* cf_in - type (lower case type/subtype) is named in list */
static int
cf_in(const char *list, const char *type)
{
	const char *p = list, *slash = strchr(type, '/');
	size_t n, tn = slash != NULL ? (size_t)(slash - type) : strlen(type);

	for (;;) {
		p += strspn(p, " \t,");
		if (*p == '\0')
			return 0;
		n = strcspn(p, " \t,");
		if ((n == strlen(type) && strncasecmp(p, type, n) == 0) ||
		    (n == tn && strncasecmp(p, type, n) == 0) ||
		    (n == tn + 2 && strncasecmp(p, type, tn) == 0 &&
			p[tn] == '/' && p[tn + 1] == '*'))
			return 1;
		p += n;
	}
}

/* cf_refused - a leaf of this type is refused */
static int
cf_refused(const struct listconf *lc, const char *type)
{
	return cf_in(lc->filter_types, type) ||
	       (lc->pass_types[0] != '\0' && !cf_in(lc->pass_types, type));
}

/* cf_type - the entity's lower-case type/subtype (text/plain when it
 * has none) and its Content-Type value */
static void
cf_type(
    const char *p, size_t n, char *ct, size_t ctlen, char *type, size_t typelen)
{
	size_t i;

	if (header_value(p, n, "Content-Type", ct, ctlen) == -1 ||
	    ct[0] == '\0')
		(void)strlcpy(ct, "text/plain", ctlen);
	for (i = 0;
	     ct[i] != '\0' && ct[i] != ';' && ct[i] != ' ' && i + 1 < typelen;
	     i++)
		type[i] = (char)tolower((unsigned char)ct[i]);
	type[i] = '\0';
}

/* cf_fields - the entity's header fields (p to hend), those that
 * describe its content left out when content is 0 */
static void
cf_fields(FILE *fp, const char *p, const char *hend, int content)
{
	const char *e;

	for (; p < hend; p = e) {
		e = header_field_end(p, hend);
		if (*p == '\n' || (*p == '\r' && e - p <= 2))
			break;
		if (content || !post_footer_moves(p, (size_t)(e - p)) ||
		    strncasecmp(p, "MIME-Version:", 13) == 0)
			fwrite(p, 1, (size_t)(e - p), fp);
	}
}

/* cf_note - a refused part's note, as its replacement (its fields
 * first when it is the whole post) */
static void
cf_note(FILE *fp, const char *p, size_t n, const char *type, int top)
{
	char ct[256], name[200] = "";

	if (top)
		cf_fields(fp, p, header_end(p, n), 0);
	if (header_value(p, n, "Content-Disposition", ct, sizeof(ct)) == 0 &&
	    cmd_mime_ext_param(ct, "filename", name, sizeof(name)) == -1)
		name[0] = '\0';
	fprintf(fp,
	    "Content-Type: text/plain; charset=utf-8\n"
	    "Content-Transfer-Encoding: 8bit\n\n"
	    "[The list's content filter removed a part of type %s%s%s%s.]\n",
	    type, name[0] ? " (" : "", name, name[0] ? ")" : "");
}

/* cf_html - an HTML leaf (its fields p, its body) as text/plain
 * (html_text.c, after its charset made UTF-8); -1 when it cannot be
 * read (left as it is) */
static int
cf_html(FILE *fp, const char *p, size_t n, const char *ct, int top)
{
	const char *hend = header_end(p, n);
	char cte[64] = "", charset[64] = "", *dec = NULL, *u, *text;
	size_t dlen, ulen, tlen;
	struct text_utf8_note note;
	int r;

	if (header_value(p, n, "Content-Transfer-Encoding", cte, sizeof(cte)) ==
	    -1)
		cte[0] = '\0';
	if (cmd_mime_param(ct, "charset", charset, sizeof(charset)) == -1)
		(void)strlcpy(charset, "us-ascii", sizeof(charset));
	if (cmd_mime_decoded(hend, (size_t)(p + n - hend), cte,
		(size_t)(p + n - hend), &dec, &dlen) == -1)
		return -1;
	r = text_utf8(charset, dec, dlen, &u, &ulen, &note);
	free(dec);
	if (r == -1)
		return -1;
	r = html_text(u, ulen, &text, &tlen);
	free(u);
	if (r == -1)
		return -1;
	if (top)
		cf_fields(fp, p, hend, 0);
	fputs("Content-Type: text/plain; charset=utf-8\n"
	      "Content-Transfer-Encoding: quoted-printable\n\n",
	    fp);
	mime_encode_qp(fp, text, tlen, "\n");
	if (tlen > 0 && text[tlen - 1] != '\n')
		fputc('\n', fp);
	free(text);
	return 0;
}

static int cf_entity(
    struct cf *c, FILE *fp, const char *p, size_t n, int depth);

/* cf_parts - each part of a multipart body (from body to end, boundary
 * b) filtered, the delimiters, preamble and epilogue as they are; with
 * want, only the first part of that type is written (nothing when none:
 * 0 returned) */
static int
cf_parts(struct cf *c, FILE *fp, const char *body, const char *end,
    const char *b, int depth, const char *want)
{
	const char *l, *le, *part = NULL, *pe;
	char ct[256], type[64];
	size_t bl = strlen(b);
	int k;

	for (l = body; l < end; l = le) {
		le = memchr(l, '\n', (size_t)(end - l));
		le = le != NULL ? le + 1 : end;
		if ((k = cmd_mime_delim(l, le, b, bl)) == 0) {
			if (part == NULL && want == NULL && c->apply)
				fwrite(l, 1, (size_t)(le - l), fp);
			continue;
		}
		if (part != NULL) {
			pe = cmd_mime_part_end(part, l);
			if (want != NULL) {
				cf_type(part, (size_t)(pe - part), ct,
				    sizeof(ct), type, sizeof(type));
				if (strcmp(type, want) == 0) {
					cf_entity(c, fp, part,
					    (size_t)(pe - part), depth + 1);
					return 1;
				}
			} else {
				cf_entity(c, fp, part, (size_t)(pe - part),
				    depth + 1);
				if (c->apply)
					fwrite(pe, 1, (size_t)(l - pe), fp);
			}
		}
		if (want == NULL && c->apply)
			fwrite(l, 1, (size_t)((k == 2 ? end : le) - l), fp);
		if (k == 2)
			return 0;
		part = le;
	}
	if (part != NULL && want == NULL) /* no closing delimiter */
		cf_entity(c, fp, part, (size_t)(end - part), depth + 1);
	return 0;
}

/* cf_multipart - a multipart entity: its parts filtered, or, collapsed,
 * its text/plain alternative in its place */
static int
cf_multipart(struct cf *c, FILE *fp, const char *p, size_t n, const char *ct,
    const char *type, int depth)
{
	const char *hend = header_end(p, n);
	char b[200], *alt = NULL;
	size_t altlen = 0;
	FILE *a;
	int found;

	if (cmd_mime_param(ct, "boundary", b, sizeof(b)) == -1 ||
	    b[0] == '\0' || depth >= CONTENT_FILTER_DEPTH) {
		if (c->apply)
			fwrite(p, 1, n, fp);
		return 0;
	}
	if (c->lc->collapse_alternatives &&
	    strcmp(type, "multipart/alternative") == 0) {
		if ((a = open_memstream(&alt, &altlen)) == NULL)
			return -1;
		found = cf_parts(c, a, hend, p + n, b, depth, "text/plain");
		if (fclose(a) == 0 && found) {
			if (c->apply && depth == 0)
				cf_fields(fp, p, hend, 0);
			if (c->apply)
				fwrite(alt, 1, altlen, fp);
			free(alt);
			return 0;
		}
		free(alt);
	}
	if (c->apply)
		fwrite(p, 1, (size_t)(hend - p), fp);
	return cf_parts(c, fp, hend, p + n, b, depth, NULL) == -1 ? -1 : 0;
}

/* cf_entity - an entity (its fields, its body) filtered into fp when
 * c->apply; its refused parts counted */
static int
cf_entity(struct cf *c, FILE *fp, const char *p, size_t n, int depth)
{
	char ct[256], type[64];

	cf_type(p, n, ct, sizeof(ct), type, sizeof(type));
	if (strncmp(type, "multipart/", 10) == 0)
		return cf_multipart(c, fp, p, n, ct, type, depth);
	if (cf_refused(c->lc, type)) {
		if (c->refused++ == 0)
			(void)strlcpy(c->first, type, sizeof(c->first));
		if (c->apply && c->lc->filter_action == CONTENT_REMOVE) {
			cf_note(fp, p, n, type, depth == 0);
			return 0;
		}
	} else if (c->apply && depth == 0 && c->lc->convert_html &&
		   strcmp(type, "text/html") == 0 &&
		   cf_html(fp, p, n, ct, 1) == 0)
		return 0;
	if (c->apply)
		fwrite(p, 1, n, fp);
	return 0;
}

/* content_filter_judge - POSTING_ACCEPT, or what filter_action says for
 * a post with a refused part (POSTING_HOLD or POSTING_REJECT) with why */
int
content_filter_judge(const struct listconf *lc, const char *text, size_t len,
    char *why, size_t whylen)
{
	struct cf c = {lc, 0, 0, ""};

	if (!lc->content_filter || lc->filter_action == CONTENT_REMOVE ||
	    post_footer_sealed(text, len))
		return POSTING_ACCEPT;
	if (cf_entity(&c, NULL, text, len, 0) == -1 || c.refused == 0)
		return POSTING_ACCEPT;
	snprintf(why, whylen,
	    "%zu part(s) of a type the list refuses (the first %s; "
	    "content_filter)",
	    c.refused, c.first);
	return lc->filter_action == CONTENT_HOLD ? POSTING_HOLD
						 : POSTING_REJECT;
}

/* content_filter_apply - the post filtered, malloc'd in *out; *out NULL
 * when the list filters nothing or the post is signed; -1 no memory */
int
content_filter_apply(const struct listconf *lc, const char *text, size_t len,
    char **out, size_t *outlen)
{
	struct cf c = {lc, 1, 0, ""};
	FILE *fp;

	*out = NULL;
	*outlen = 0;
	if (!lc->content_filter || post_footer_sealed(text, len))
		return 0;
	if ((fp = open_memstream(out, outlen)) == NULL)
		return -1;
	if (cf_entity(&c, fp, text, len, 0) == -1) {
		fclose(fp);
		free(*out);
		*out = NULL;
		return -1;
	}
	if (fclose(fp) == EOF) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
