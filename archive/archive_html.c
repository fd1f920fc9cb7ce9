/*
 * archive_html.c - the HTML of the archive's pages.  Every byte that
 * comes from a post reaches a page through html_esc (common/), as text or
 * inside a double-quoted attribute; nothing from a post is ever a tag,
 * an attribute name or a URL scheme.  Each page also forbids scripts,
 * frames and remote content by its Content-Security-Policy, so a
 * mistake here still runs nothing.  The pages are HTML5 with one
 * stylesheet, light and dark by prefers-color-scheme, narrow screens
 * first, and need no JavaScript.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "archive_html.h"

/* archive_html_addr - "local at domain", escaped */
void
archive_html_addr(FILE *fp, const char *addr)
{
	const char *at = strrchr(addr, '@');

	if (at == NULL) {
		html_str(fp, addr);
		return;
	}
	html_esc(fp, addr, (size_t)(at - addr));
	fputs(" <span class=\"at\">at</span> ", fp);
	html_str(fp, at + 1);
}

/* archive_html_date - a <time> in UTC */
void
archive_html_date(FILE *fp, time_t t)
{
	char iso[32], shown[32];
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0 ||
	    strftime(shown, sizeof(shown), "%Y-%m-%d %H:%M UTC", &tm) == 0) {
		fputs("?", fp);
		return;
	}
	fprintf(fp, "<time datetime=\"%s\">%s</time>", iso, shown);
}

/* archive_html_head - the page up to <main> */
void
archive_html_head(
    FILE *fp, const char *title, const char *list, const char *root)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" "
	      "content=\"default-src 'none'; style-src 'self'; img-src "
	      "'self'; base-uri 'none'; form-action *\">\n"
	      "<meta name=\"referrer\" content=\"no-referrer\">\n"
	      "<meta name=\"color-scheme\" content=\"light dark\">\n"
	      "<title>",
	    fp);
	html_str(fp, title);
	fputs(" - ", fp);
	html_str(fp, list);
	fputs("</title>\n<link rel=\"stylesheet\" href=\"", fp);
	html_str(fp, root);
	fputs("style.css\">\n<link rel=\"alternate\" "
	      "type=\"application/atom+xml\" href=\"",
	    fp);
	html_str(fp, root);
	fputs("feed.atom\" title=\"", fp);
	html_str(fp, list);
	fputs(
	    "\">\n</head>\n<body>\n<header><nav><a class=\"list\" href=\"", fp);
	html_str(fp, root);
	fputs("index.html\">", fp);
	html_str(fp, list);
	fputs("</a></nav></header>\n<main>\n", fp);
}

/* archive_html_foot - the page from </main> on */
void
archive_html_foot(FILE *fp, const char *root)
{
	fputs("</main>\n<footer><a href=\"", fp);
	html_str(fp, root);
	fputs("index.html\">All months</a> &middot; <a href=\"", fp);
	html_str(fp, root);
	fputs("feed.atom\">Feed</a></footer>\n</body>\n</html>\n", fp);
}

/* archive_html_url_len - the length of an http(s) URL at p (n left),
 * trailing punctuation not part of it; 0 when none starts there */
static size_t
archive_html_url_len(const char *p, size_t n)
{
	size_t k, start;

	if (n > 8 && strncmp(p, "https://", 8) == 0)
		start = 8;
	else if (n > 7 && strncmp(p, "http://", 7) == 0)
		start = 7;
	else
		return 0;
	for (k = start; k < n; k++)
		if ((unsigned char)p[k] <= ' ' || strchr("<>\"'`{}|\\^", p[k]))
			break;
	while (k > start && strchr(".,;:!?)]", p[k - 1]) != NULL)
		k--;
	return k > start ? k : 0;
}

/* archive_html_addr_at - the bounds of an address around the '@' at
 * s[i] (text n bytes): *a its start, *e its end; 0, or -1 when it is
 * not one */
static int
archive_html_addr_at(const char *s, size_t n, size_t i, size_t *a, size_t *e)
{
	size_t x = i, y = i + 1;

	while (x > 0 && (isalnum((unsigned char)s[x - 1]) ||
			    strchr("._%+-", s[x - 1]) != NULL))
		x--;
	while (y < n &&
	       (isalnum((unsigned char)s[y]) || s[y] == '.' || s[y] == '-'))
		y++;
	while (y > i + 1 && s[y - 1] == '.')
		y--;
	if (x == i || y <= i + 1 || memchr(s + i + 1, '.', y - i - 1) == NULL)
		return -1;
	*a = x;
	*e = y;
	return 0;
}

/* archive_html_line - text: URLs as links (links set), addresses
 * obfuscated */
static void
archive_html_line(FILE *fp, const char *s, size_t n, int links)
{
	size_t i = 0, done = 0, k, a, e;

	while (i < n) {
		if (links && s[i] == 'h' &&
		    (i == 0 || !isalnum((unsigned char)s[i - 1])) &&
		    (k = archive_html_url_len(s + i, n - i)) > 0) {
			html_esc(fp, s + done, i - done);
			fputs("<a rel=\"nofollow noopener\" href=\"", fp);
			html_esc(fp, s + i, k);
			fputs("\">", fp);
			html_esc(fp, s + i, k);
			fputs("</a>", fp);
			i += k;
			done = i;
		} else if (s[i] == '@' &&
			   archive_html_addr_at(s, n, i, &a, &e) == 0 &&
			   a >= done) {
			html_esc(fp, s + done, a - done);
			html_esc(fp, s + a, i - a);
			fputs(" <span class=\"at\">at</span> ", fp);
			html_esc(fp, s + i + 1, e - i - 1);
			i = done = e;
		} else
			i++;
	}
	html_esc(fp, s + done, n - done);
}

/* archive_html_plain - text escaped, its addresses obfuscated, no
 * markup (for the feed) */
void
archive_html_plain(FILE *fp, const char *text, size_t len)
{
	archive_html_line(fp, text, len, 0);
}

/* archive_html_quoted - the quote depth of a line ("> > x": 2) */
static int
archive_html_quoted(const char *s, size_t n)
{
	size_t i;
	int d = 0;

	for (i = 0; i < n && (s[i] == '>' || s[i] == ' '); i++)
		if (s[i] == '>')
			d++;
	return d > 3 ? 3 : d;
}

/* archive_html_text - a post's text: quoted runs set apart */
void
archive_html_text(FILE *fp, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	size_t n;
	int depth = 0, d;

	fputs("<div class=\"text\">", fp);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		d = archive_html_quoted(p, n);
		if (d != depth) {
			if (depth > 0)
				fputs("</blockquote>", fp);
			if (d > 0)
				fprintf(fp, "<blockquote class=\"q%d\">", d);
			depth = d;
		}
		archive_html_line(fp, p, n, 1);
		fputc('\n', fp);
		p = nl ? nl + 1 : end;
	}
	if (depth > 0)
		fputs("</blockquote>", fp);
	fputs("</div>\n", fp);
}

const char archive_html_css[] =
    ":root{color-scheme:light dark;--bg:#fdfdfc;--fg:#1d1d1f;--mute:#6a6a70;"
    "--line:#e3e3e0;--link:#0b57d0;--q:#f3f1ea;--qb:#c9bf9a}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#141416;--fg:#e6e6e3;"
    "--mute:#9a9aa0;--line:#2c2c30;--link:#8ab4f8;--q:#1f1e1a;--qb:#6b6242}}"
    "\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 "
    "system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}\n"
    "header,main,footer{max-width:52rem;margin:0 auto;padding:.75rem "
    "1rem}\n"
    "header{border-bottom:1px solid var(--line)}\n"
    "header .list{font-weight:600;text-decoration:none}\n"
    "footer{color:var(--mute);font-size:.9rem;border-top:1px solid "
    "var(--line);margin-top:2rem}\n"
    "a{color:var(--link)}\n"
    "h1{font-size:1.45rem;line-height:1.3;margin:.5rem 0 "
    "1rem;overflow-wrap:anywhere}\n"
    "h2{font-size:1.1rem;margin:1.5rem 0 .5rem}\n"
    ".meta{color:var(--mute);font-size:.92rem;margin:0 0 1rem}\n"
    ".meta dt{float:left;clear:left;width:6.5rem}\n"
    ".meta dd{margin:0 0 0 6.5rem;overflow-wrap:anywhere}\n"
    ".at{color:var(--mute);font-size:.85em}\n"
    ".text{white-space:pre-wrap;overflow-wrap:anywhere;font-family:"
    "ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace;font-size:."
    "92rem;line-height:1.5}\n"
    "blockquote{margin:.2rem 0;padding:.1rem .75rem;background:var(--q);"
    "border-left:3px solid var(--qb);color:var(--mute)}\n"
    "ul.posts,ul.threads,ul.months,ul.att{list-style:none;padding:0;"
    "margin:0}\n"
    "ul.posts li,ul.threads>li,ul.months li,ul.att li{padding:.35rem 0;"
    "border-bottom:1px solid var(--line)}\n"
    "ul.threads ul{list-style:none;padding-left:1rem;margin:.25rem 0 0;"
    "border-left:1px solid var(--line)}\n"
    ".who,.when,.n{color:var(--mute);font-size:.88rem}\n"
    "nav.pager{display:flex;gap:1rem;flex-wrap:wrap;margin:1rem 0}\n"
    ".removed{color:var(--mute);font-style:italic}\n"
    "@media (min-width:60rem){body{font-size:17px}}\n";
