/*
 * json_out.c - JSON strings (RFC 8259 7): quote and backslash escaped,
 * control characters and everything past ASCII as \uXXXX (UTF-16, a
 * surrogate pair past U+FFFF), so the text is 7-bit and can go in a
 * MIME part without transfer encoding.  A byte sequence that is not
 * UTF-8 becomes U+FFFD, one per byte: the output is always JSON.
 */
#include <stdio.h>

#include "json_out.h"

/* json_out_utf8 - the code point at *p (advanced past it), or 0xFFFD
 * for a byte that does not start a well-formed sequence */
static unsigned long
json_out_utf8(const unsigned char **p)
{
	const unsigned char *s = *p;
	unsigned long cp, min;
	int n, i;

	if (s[0] >= 0xf0 && s[0] < 0xf5)
		n = 3, cp = s[0] & 0x07, min = 0x10000;
	else if (s[0] >= 0xe0)
		n = 2, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xc2 && s[0] < 0xe0)
		n = 1, cp = s[0] & 0x1f, min = 0x80;
	else
		n = 0, cp = 0, min = 1;
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			break;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (n == 0 || i <= n || cp < min || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp < 0xe000)) {
		*p = s + 1;
		return 0xfffd;
	}
	*p = s + n + 1;
	return cp;
}

/* json_out_str - s as a JSON string */
void
json_out_str(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long cp;

	fputc('"', fp);
	while (*p != '\0') {
		if (*p == '"' || *p == '\\') {
			fprintf(fp, "\\%c", *p++);
			continue;
		}
		if (*p >= 0x20 && *p < 0x7f) {
			fputc(*p++, fp);
			continue;
		}
		cp = *p < 0x80 ? *p++ : json_out_utf8(&p);
		if (cp > 0xffff) {
			cp -= 0x10000;
			fprintf(fp, "\\u%04lx\\u%04lx", 0xd800 | cp >> 10,
			    0xdc00 | (cp & 0x3ff));
		} else
			fprintf(fp, "\\u%04lx", cp);
	}
	fputc('"', fp);
}
