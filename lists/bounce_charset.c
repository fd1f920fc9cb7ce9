/*
 * bounce_charset.c - a report part's text converted to UTF-8 with
 * iconv(3): the Japanese carriers and Lotus Notes write their reasons
 * in ISO-2022-JP or Shift_JIS, Exchange in Windows-1252, and a reason is
 * only matched by a rule (bounce_rules.c) once it is in one charset.
 * What does not convert is left as it was: the address forms are ASCII
 * and still read.
 */
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounce_charset.h"

/* charset_plain - a charset whose text needs no conversion */
static int
charset_plain(const char *cs)
{
	return cs[0] == '\0' || strcasecmp(cs, "us-ascii") == 0 ||
	       strcasecmp(cs, "utf-8") == 0 || strcasecmp(cs, "utf8") == 0 ||
	       strcasecmp(cs, "ascii") == 0;
}

/* bounce_charset_utf8 - the text in UTF-8 */
int
bounce_charset_utf8(const char *charset, char **text, size_t *len)
{
	iconv_t cd;
	char *in, *out, *buf;
	size_t inleft, outleft, cap;

	if (charset_plain(charset) || *len == 0)
		return 0;
	if ((cd = iconv_open("UTF-8", charset)) == (iconv_t)-1)
		return 0; /* a charset iconv does not know: as it is */
	cap = *len * 3 + 16;
	if ((buf = malloc(cap + 1)) == NULL) {
		(void)iconv_close(cd);
		return -1;
	}
	in = *text, inleft = *len;
	out = buf, outleft = cap;
	while (inleft > 0 &&
	       iconv(cd, &in, &inleft, &out, &outleft) == (size_t)-1) {
		if (errno != EILSEQ || outleft == 0)
			break; /* cut short, or no room: keep what converted */
		/* a byte not in the charset: passed on as it is */
		*out++ = *in++;
		inleft--, outleft--;
	}
	(void)iconv_close(cd); /* nothing written through it */
	if (inleft > 0 && outleft >= inleft) {
		memcpy(out, in, inleft);
		out += inleft;
	}
	*out = '\0';
	free(*text);
	*text = buf;
	*len = (size_t)(out - buf);
	return 0;
}
