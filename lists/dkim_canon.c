/*
 * dkim_canon.c - the relaxed canonicalizations of RFC 6376 3.4.2 (header)
 * and 3.4.4 (body) over a message text as the runner stores it.
 *
 * Line ends are read the way the SMTP client writes them (smtp_data.c):
 * CRLF, a bare CR and a bare LF are each one line end, sent as CRLF; so
 * what is hashed here is what the receiver hashes.
 */
#include <string.h>

#include "dkim_canon.h"

#define DKIM_WSP(c) ((c) == ' ' || (c) == '\t')

/* dkim_canon_eol - the length of the line starting at p (up to its end
 * or the end of the text), and in *eol the length of its line end */
static size_t
dkim_canon_line(const char *p, const char *end, size_t *eol)
{
	const char *q;

	for (q = p; q < end && *q != '\r' && *q != '\n'; q++)
		;
	*eol = q == end					     ? 0
	       : (*q == '\r' && q + 1 < end && q[1] == '\n') ? 2
							     : 1;
	return (size_t)(q - p);
}

/* dkim_canon_fields - the header fields of text (at most max of them)
 * and where its body starts; the number of fields (more than max means
 * some were not stored) */
size_t
dkim_canon_fields(const char *text, size_t len, struct dkim_field *f,
    size_t max, const char **body)
{
	const char *p = text, *end = text + len, *colon;
	size_t n = 0, ll, eol;

	while (p < end) {
		ll = dkim_canon_line(p, end, &eol);
		if (ll == 0 && eol > 0) {
			p += eol; /* the empty line */
			break;
		}
		if (DKIM_WSP(*p) && n > 0 && n <= max) {
			f[n - 1].len += ll + eol; /* a continuation line */
		} else {
			if (n < max) {
				f[n].p = p;
				f[n].len = ll + eol;
				colon = memchr(p, ':', ll);
				f[n].namelen =
				    colon != NULL ? (size_t)(colon - p) : ll;
			}
			n++;
		}
		p += ll + eol;
	}
	*body = p;
	return n;
}

/* dkim_canon_header - a field relaxed (RFC 6376 3.4.2): name in lower
 * case, unfolded, runs of blanks one space, none at the end or around
 * the colon; no line end.  out holds len bytes; the length written */
size_t
dkim_canon_header(const char *p, size_t len, char *out)
{
	const char *end = p + len, *colon = memchr(p, ':', len);
	size_t n = 0;
	int sp = 0, value = 0;

	if (colon == NULL)
		colon = end;
	for (; p < end; p++) {
		char c = *p;

		if (c == '\r' || c == '\n')
			continue; /* unfolding: the blank after it stays */
		if (p < colon) {
			if (DKIM_WSP(c))
				continue; /* before the colon: dropped */
			out[n++] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
			continue;
		}
		if (p == colon) {
			out[n++] = ':';
			continue;
		}
		if (DKIM_WSP(c)) {
			sp = 1;
			continue;
		}
		if (sp && value) /* after the colon: dropped */
			out[n++] = ' ';
		sp = 0;
		value = 1;
		out[n++] = c;
	}
	return n;
}

/* dkim_canon_body - the body relaxed (RFC 6376 3.4.4) into out: runs of
 * blanks one space, none at a line's end, every line end CRLF, no empty
 * lines at the end (an empty body stays empty) */
void
dkim_canon_body(const char *p, size_t len, dkim_canon_out *out, void *arg)
{
	static const char crlf[] = "\r\n";
	const char *end = p + len, *q, *e;
	size_t ll, eol, empty = 0;

	while (p < end) {
		ll = dkim_canon_line(p, end, &eol);
		for (e = p + ll; e > p && DKIM_WSP(e[-1]); e--)
			;
		if (e == p) {
			empty++; /* held back: it may be trailing */
		} else {
			for (; empty > 0; empty--)
				out(arg, crlf, 2);
			for (q = p; q < e;) {
				const char *run = q;
				if (DKIM_WSP(*q)) {
					while (q < e && DKIM_WSP(*q))
						q++;
					out(arg, " ", 1);
					continue;
				}
				while (q < e && !DKIM_WSP(*q))
					q++;
				out(arg, run, (size_t)(q - run));
			}
			out(arg, crlf, 2);
		}
		p += ll + eol;
	}
}
