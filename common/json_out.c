/*
 * json_out.c - JSON strings (RFC 8259 7): quote and backslash escaped,
 * control characters and everything past ASCII as \uXXXX (UTF-16, a
 * surrogate pair past U+FFFF), so the text is 7-bit and can go in a
 * MIME part without transfer encoding.  A byte sequence that is not
 * UTF-8 becomes U+FFFD, one per byte: the output is always JSON.
 */
#include <stdio.h>

#include "json_out.h"
#include "utf8.h"

/* json_out_str - s as a JSON string */
void
json_out_str(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long cp;
	int bad;

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
		cp = *p < 0x80 ? *p++ : utf8_next(&p, &bad);
		if (cp > 0xffff) {
			cp -= 0x10000;
			fprintf(fp, "\\u%04lx\\u%04lx", 0xd800 | cp >> 10,
			    0xdc00 | (cp & 0x3ff));
		} else
			fprintf(fp, "\\u%04lx", cp);
	}
	fputc('"', fp);
}
