/*
 * cmd_mime.c - just enough RFC 5322 and MIME to read a request.
 *
 * A request is read by a program, so the rules are those a careful mail
 * reader would apply, not a full MIME engine: the first part of the
 * wanted type wins (text/plain for commands, so the HTML twin of a
 * multipart/alternative is never read), nesting is bounded, and a part
 * whose encoding is neither base64 nor quoted-printable is taken as it
 * is.  Everything is bounded by the caller's buffers and a maximum.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd_mime.h"
#include "header.h"

/* cmd_mime_param - a parameter of a structured value such as
 * Content-Type (quotes removed); 0 found, -1 none */
int
cmd_mime_param(const char *value, const char *param, char *out, size_t outlen)
{
	const char *p = value, *v;
	size_t k = strlen(param), n = 0;
	int quoted;

	while ((p = strchr(p, ';')) != NULL) {
		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		if (strncasecmp(p, param, k) != 0 || p[k] != '=')
			continue;
		v = p + k + 1;
		if ((quoted = *v == '"'))
			v++;
		for (; *v != '\0'; v++) {
			if (quoted ? *v == '"' : (*v == ';' || *v == ' '))
				break;
			if (n + 1 < outlen)
				out[n++] = *v;
		}
		if (outlen > 0)
			out[n] = '\0';
		return 0;
	}
	return -1;
}

/* cmd_mime_type - the lower-case type/subtype of a Content-Type value */
static void
cmd_mime_type(const char *value, char *out, size_t outlen)
{
	size_t n = 0;

	for (; *value != '\0' && *value != ';' && *value != ' '; value++)
		if (n + 1 < outlen)
			out[n++] = (char)tolower((unsigned char)*value);
	out[n] = '\0';
}

/* cmd_mime_delim - p starts the line "--boundary" (or "--boundary--");
 * 1 delimiter, 2 close delimiter, 0 neither */
int
cmd_mime_delim(const char *p, const char *end, const char *b, size_t blen)
{
	if ((size_t)(end - p) < blen + 2 || p[0] != '-' || p[1] != '-' ||
	    memcmp(p + 2, b, blen) != 0)
		return 0;
	p += blen + 2;
	if (end - p >= 2 && p[0] == '-' && p[1] == '-')
		return 2;
	return 1;
}

/* cmd_mime_part_end - the end of a part that starts at part and whose
 * next delimiter line starts at delim: the line break before a
 * delimiter belongs to it */
const char *
cmd_mime_part_end(const char *part, const char *delim)
{
	if (delim > part && delim[-1] == '\n')
		delim--;
	if (delim > part && delim[-1] == '\r')
		delim--;
	return delim;
}

/* cmd_mime_node - the part text (len bytes) described in *pt */
static void
cmd_mime_node(const char *text, size_t len, int depth, struct cmd_mime_part *pt)
{
	const char *hend = header_end(text, len);

	pt->text = text;
	pt->len = len;
	pt->body = hend;
	pt->blen = (size_t)(text + len - hend);
	pt->depth = depth;
	if (header_value(text, len, "Content-Type", pt->ct, sizeof(pt->ct)) ==
	    -1)
		(void)strlcpy(pt->ct, "text/plain", sizeof(pt->ct));
	cmd_mime_type(pt->ct, pt->type, sizeof(pt->type));
	if (header_value(text, len, "Content-Transfer-Encoding", pt->cte,
		sizeof(pt->cte)) == -1)
		pt->cte[0] = '\0';
}

/* cmd_mime_visit - fn on the part text and, while fn returns 0, on
 * each part of a multipart (depth first); what fn last returned */
static int
cmd_mime_visit(
    const char *text, size_t len, int depth, cmd_mime_fn *fn, void *arg)
{
	struct cmd_mime_part pt;
	char boundary[80];
	const char *end = text + len, *p, *part = NULL, *stop;
	size_t bl;
	int d, r;

	cmd_mime_node(text, len, depth, &pt);
	if ((r = fn(arg, &pt)) != 0)
		return r;
	if (strncmp(pt.type, "multipart/", 10) != 0 ||
	    depth >= CMD_MIME_DEPTH ||
	    cmd_mime_param(pt.ct, "boundary", boundary, sizeof(boundary)) ==
		-1 ||
	    (bl = strlen(boundary)) == 0)
		return 0;
	for (p = pt.body; p < end; p = header_next_line(p, end)) {
		if ((d = cmd_mime_delim(p, end, boundary, bl)) == 0)
			continue;
		if (part != NULL) {
			stop = cmd_mime_part_end(part, p);
			if ((r = cmd_mime_visit(part, (size_t)(stop - part),
				 depth + 1, fn, arg)) != 0)
				return r;
		}
		if (d == 2)
			return 0;
		part = header_next_line(p, end);
	}
	return 0;
}

/* cmd_mime_each - fn on every part of the message, itself first, depth
 * first, multiparts nested at most CMD_MIME_DEPTH deep, until fn returns
 * non-zero; what fn last returned */
int
cmd_mime_each(const char *text, size_t len, cmd_mime_fn *fn, void *arg)
{
	return cmd_mime_visit(text, len, 0, fn, arg);
}

/* The first part of a type, as cmd_mime_walk looks for it. */
struct cmd_mime_want {
	const char *type;
	struct cmd_mime_part found;
};

/* cmd_mime_match - cmd_mime_each's callback: 1 when p is of the type
 * wanted (a part without a type is text/plain) */
static int
cmd_mime_match(void *arg, const struct cmd_mime_part *p)
{
	struct cmd_mime_want *w = arg;

	if (strcmp(p->type, w->type) != 0 &&
	    (p->type[0] != '\0' || strcmp(w->type, "text/plain") != 0))
		return 0;
	w->found = *p;
	return 1;
}

/* cmd_mime_walk - the first part of the given type (depth first); its
 * body and transfer encoding; 0 found, -1 none */
static int
cmd_mime_walk(const char *text, size_t len, const char *want, const char **body,
    size_t *blen, char *cte, size_t ctelen)
{
	struct cmd_mime_want w;

	w.type = want;
	if (cmd_mime_each(text, len, cmd_mime_match, &w) != 1)
		return -1;
	*body = w.found.body;
	*blen = w.found.blen;
	(void)strlcpy(cte, w.found.cte, ctelen);
	return 0;
}

/* cmd_mime_find - the raw body of the first part of a type */
int
cmd_mime_find(const char *text, size_t len, const char *type, const char **part,
    size_t *partlen)
{
	char cte[64];

	return cmd_mime_walk(text, len, type, part, partlen, cte, sizeof(cte));
}

/* cmd_mime_b64 - the value of a base64 character, -1 for others */
static int
cmd_mime_b64(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* cmd_mime_hex - the value of a hex digit, -1 for others */
static int
cmd_mime_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (unsigned char)tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* cmd_mime_decode - a body into out (at most max bytes) */
static size_t
cmd_mime_decode(
    const char *in, size_t len, const char *cte, char *out, size_t max)
{
	const unsigned char *p = (const unsigned char *)in, *end = p + len;
	unsigned long acc = 0;
	size_t n = 0;
	int bits = 0, v, h, l;

	if (strcasecmp(cte, "base64") == 0) {
		for (; p < end && *p != '=' && n < max; p++) {
			if ((v = cmd_mime_b64(*p)) == -1)
				continue; /* line breaks, blanks, garbage */
			acc = (acc << 6 | (unsigned long)v) & 0xffffff;
			if ((bits += 6) >= 8) {
				bits -= 8;
				out[n++] = (char)(acc >> bits & 0xff);
			}
		}
		return n;
	}
	if (strcasecmp(cte, "quoted-printable") == 0) {
		while (p < end && n < max) {
			if (*p != '=') {
				out[n++] = (char)*p++;
			} else if (end - p >= 3 &&
				   (h = cmd_mime_hex(p[1])) != -1 &&
				   (l = cmd_mime_hex(p[2])) != -1) {
				out[n++] = (char)(h << 4 | l);
				p += 3;
			} else if (end - p >= 2 && p[1] == '\n') {
				p += 2; /* soft line break */
			} else if (end - p >= 3 && p[1] == '\r' &&
				   p[2] == '\n') {
				p += 3;
			} else {
				out[n++] = (char)*p++;
			}
		}
		return n;
	}
	n = len < max ? len : max;
	memcpy(out, in, n);
	return n;
}

/* cmd_mime_decoded - a body in its transfer encoding (cte), decoded, at
 * most max bytes (malloc'd, NUL-terminated) */
int
cmd_mime_decoded(const char *body, size_t blen, const char *cte, size_t max,
    char **out, size_t *outlen)
{
	if ((*out = malloc(max + 1)) == NULL)
		return -1;
	*outlen = blen ? cmd_mime_decode(body, blen, cte, *out, max) : 0;
	(*out)[*outlen] = '\0';
	return 0;
}

/* cmd_mime_plain - the first text/plain part, decoded, at most max bytes
 * (malloc'd, NUL-terminated); an empty text when there is none */
int
cmd_mime_plain(
    const char *text, size_t len, size_t max, char **out, size_t *outlen)
{
	const char *body = NULL;
	char cte[64] = "";
	size_t blen = 0;

	if (cmd_mime_walk(
		text, len, "text/plain", &body, &blen, cte, sizeof(cte)) == -1)
		blen = 0;
	return cmd_mime_decoded(body, blen, cte, max, out, outlen);
}
