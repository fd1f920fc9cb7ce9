/*
 * header.c - reading a stored message's header: where the body starts,
 * the envelope sender mj_enqueue recorded in Return-Path, a field's
 * value and the address in one.  The one home of these header words:
 * requests, posts, bounces, digests, the archive and the web pages all
 * read a header through them.
 */
#include <string.h>
#include <strings.h>

#include "header.h"
#include "names.h"

/* header_end - the start of the body (after the empty line), or
 * the end of the text when there is no body */
const char *
header_end(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;

	while (p < end) {
		if (*p == '\n')
			return p + 1;
		if (*p == '\r' && p + 1 < end && p[1] == '\n')
			return p + 2;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return end;
		p = nl + 1;
	}
	return end;
}

/* header_return_path - the address of the first Return-Path header; 0
 * found (possibly empty: the null sender), -1 none */
int
header_return_path(const char *text, size_t len, char *out, size_t outlen)
{
	const char *hend = header_end(text, len), *p = text, *nl, *lt;
	const char *gt;

	while (p < hend) {
		if ((nl = memchr(p, '\n', (size_t)(hend - p))) == NULL)
			nl = hend;
		if (nl - p > 12 && strncasecmp(p, "Return-Path:", 12) == 0 &&
		    (lt = memchr(p, '<', (size_t)(nl - p))) != NULL &&
		    (gt = memchr(lt, '>', (size_t)(nl - lt))) != NULL &&
		    (size_t)(gt - lt - 1) < outlen) {
			memcpy(out, lt + 1, (size_t)(gt - lt - 1));
			out[gt - lt - 1] = '\0';
			return 0;
		}
		p = nl + 1;
	}
	out[0] = '\0';
	return -1;
}

/* The longest Return-Path line mj_enqueue puts on top: an address of
 * NAME_ADDR_MAX (its senders are no longer) in <>, CRLF. */
#define HEADER_ADDED_RP_MAX (sizeof("Return-Path: <>\r\n") - 1 + NAME_ADDR_MAX)

/* header_sent_size - the size of a stored message as its poster sent it:
 * without the Return-Path line on top that delivery adds (mj_enqueue,
 * from the envelope sender, RFC 5321 4.4).  Only a line as short as one
 * mj_enqueue writes is taken off, so a poster's own header cannot hide
 * more than that from a size limit. */
size_t
header_sent_size(const char *text, size_t len)
{
	const char *nl;
	size_t line;

	if (len < 14 || strncasecmp(text, "Return-Path: <", 14) != 0 ||
	    (nl = memchr(text, '\n', len)) == NULL)
		return len;
	line = (size_t)(nl + 1 - text);
	return line <= HEADER_ADDED_RP_MAX ? len - line : len;
}

/* header_field_end - the end of the header field starting at p (before
 * hend, the header's end), its continuation lines included */
const char *
header_field_end(const char *p, const char *hend)
{
	const char *nl;

	for (;;) {
		if ((nl = memchr(p, '\n', (size_t)(hend - p))) == NULL)
			return hend;
		p = nl + 1;
		if (p >= hend || (*p != ' ' && *p != '\t'))
			return p;
	}
}

/* header_next_line - the start of the line after p (or end) */
const char *
header_next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

/* header_value - the unfolded value of the first header field called
 * name, blanks at both ends removed; 0 found, -1 none */
int
header_value(
    const char *text, size_t len, const char *name, char *out, size_t outlen)
{
	const char *hend = header_end(text, len), *p, *e, *v;
	size_t k = strlen(name), n = 0;

	for (p = text; p < hend; p = e) {
		e = header_next_line(p, hend);
		if ((size_t)(e - p) <= k || p[k] != ':' ||
		    strncasecmp(p, name, k) != 0)
			continue;
		/* The value runs on through continuation lines. */
		for (v = p + k + 1; v < hend; v++) {
			if (*v == '\n' &&
			    (v + 1 >= hend || (v[1] != ' ' && v[1] != '\t')))
				break;
			if (*v == '\r' || *v == '\n')
				continue;
			if (n + 1 < outlen)
				out[n++] = *v == '\t' ? ' ' : *v;
		}
		while (n > 0 && out[n - 1] == ' ')
			n--;
		if (outlen > 0)
			out[n] = '\0';
		for (v = out; *v == ' '; v++)
			;
		memmove(out, v, strlen(v) + 1);
		return 0;
	}
	if (outlen > 0)
		out[0] = '\0';
	return -1;
}

/* header_addr - the address of a From:/To: value: inside <> when
 * there are some, else the first word with an @; 0 found, -1 none */
int
header_addr(const char *value, char *out, size_t outlen)
{
	const char *p, *e = NULL, *lt = NULL;
	size_t n;

	/* The last <...> outside quotes: "a <b>" <c@d> is c@d. */
	for (p = value; *p != '\0'; p++) {
		if (*p == '"' && (e = strchr(p + 1, '"')) != NULL)
			p = e;
		else if (*p == '<')
			lt = p;
	}
	if (lt != NULL && (e = strchr(lt, '>')) != NULL) {
		p = lt + 1;
	} else {
		for (p = value; *p != '\0'; p = e) {
			while (*p == ' ' || *p == ',')
				p++;
			e = p + strcspn(p, " ,");
			if (memchr(p, '@', (size_t)(e - p)) != NULL)
				break;
		}
		if (*p == '\0')
			return -1;
	}
	n = (size_t)(e - p);
	if (n == 0 || n >= outlen || memchr(p, '@', n) == NULL)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}
