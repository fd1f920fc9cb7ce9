/*
 * html_esc.c - the one HTML escaping of mjq's pages (the archive's, the
 * CGI programs'): text, or a double- or single-quoted attribute value,
 * with & < > " ' as entities, control bytes but tab and newline
 * dropped, and bytes that are not UTF-8 shown as U+FFFD, so nothing a
 * post or a request brings is ever markup.
 */
#include <stdio.h>
#include <string.h>

#include "html_esc.h"

/* html_utf8len - the length of the valid UTF-8 sequence at s
 * (n bytes left), or 0 when it is not one */
static size_t
html_utf8len(const unsigned char *s, size_t n)
{
	size_t k, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((k == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
	    (k == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (k == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
	    (k == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return k;
}

/* html_esc - n bytes of s, escaped */
void
html_esc(FILE *fp, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t k;

	while (p < end) {
		/* a run of plain ASCII at once */
		for (k = 0; p + k < end && p[k] >= 0x20 && p[k] < 0x7f &&
			    p[k] != '&' && p[k] != '<' && p[k] != '>' &&
			    p[k] != '"' && p[k] != '\'';
		     k++)
			;
		if (k > 0) {
			fwrite(p, 1, k, fp);
			p += k;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		case '\'':
			fputs("&#39;", fp);
			break;
		case '\t':
		case '\n':
			fputc(*p, fp);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				break;
			if ((k = html_utf8len(p, (size_t)(end - p))) == 0) {
				fputs("\xef\xbf\xbd", fp);
				break;
			}
			fwrite(p, 1, k, fp);
			p += k;
			continue;
		}
		p++;
	}
}

/* html_str - a string, escaped */
void
html_str(FILE *fp, const char *s)
{
	html_esc(fp, s, strlen(s));
}
