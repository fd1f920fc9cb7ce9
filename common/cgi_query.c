/*
 * cgi_query.c - a field of a CGI query string (or of an
 * application/x-www-form-urlencoded body), percent-decoded: '+' is a
 * blank, a control byte or a repeated field is refused, the value is
 * bounded by the caller's buffer.  The CGI programs (mj_unsubscribe,
 * mj_archsearch) read their parameters through it.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "cgi_query.h"

/* cgi_query_hexval - a hex digit's value, or -1 */
static int
cgi_query_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* cgi_query_decode - percent-decode n bytes into out (NUL-terminated);
 * 0 ok, -1 malformed, too long, or a control byte */
static int
cgi_query_decode(const char *in, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;
	int hi, lo, c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)in[i];
		if (c == '%') {
			if (i + 2 >= n)
				return -1;
			if ((hi = cgi_query_hexval((unsigned char)in[i + 1])) <
				0 ||
			    (lo = cgi_query_hexval((unsigned char)in[i + 2])) <
				0)
				return -1;
			c = hi << 4 | lo;
			i += 2;
		} else if (c == '+') {
			c = ' ';
		}
		if (c < 0x20 || c == 0x7f || o + 1 >= outlen)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

/* cgi_query_field - the decoded value of key in a query string; 0 found,
 * -1 absent, repeated or malformed */
int
cgi_query_field(const char *query, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key);
	const char *p = query, *amp;
	int found = 0;

	while (*p != '\0') {
		amp = p + strcspn(p, "&;");
		if ((size_t)(amp - p) > klen && strncmp(p, key, klen) == 0 &&
		    p[klen] == '=') {
			if (found++ ||
			    cgi_query_decode(p + klen + 1,
				(size_t)(amp - p - (ptrdiff_t)klen - 1), out,
				outlen) == -1)
				return -1;
		}
		p = *amp ? amp + 1 : amp;
	}
	return found ? 0 : -1;
}
