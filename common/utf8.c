/*
 * utf8.c - one UTF-8 sequence decoded (RFC 3629 4: UTF8-2, UTF8-3,
 * UTF8-4; no overlong forms, no surrogates, nothing past U+10FFFF).
 */
#include "utf8.h"

/* utf8_next - decode the sequence at *p; *bad set when it is not one */
unsigned long
utf8_next(const unsigned char **p, int *bad)
{
	const unsigned char *s = *p;
	unsigned long cp, min;
	int n, i;

	if (s[0] >= 0xf0 && s[0] < 0xf5)
		n = 3, cp = s[0] & 0x07, min = 0x10000;
	else if (s[0] >= 0xe0 && s[0] < 0xf0)
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
		*bad = 1;
		return 0xfffd;
	}
	*p = s + n + 1;
	*bad = 0;
	return cp;
}
