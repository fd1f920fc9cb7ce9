/*
 * archive_html.h - HTML for the archive's pages (archive_html.c): the
 * one escaping function, the page shell and stylesheet, and a post's
 * text made safe and readable.
 */
#ifndef MJQ_ARCHIVE_HTML_H
#define MJQ_ARCHIVE_HTML_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "html_esc.h"

/* archive_html_addr - an address as "local at domain", escaped */
void archive_html_addr(FILE *fp, const char *addr);
/* archive_html_date - t as "YYYY-MM-DD HH:MM UTC" in a <time> */
void archive_html_date(FILE *fp, time_t t);
/* archive_html_head - <!doctype html> up to <main>: title (escaped),
 * root the relative path to the list's top ("", "../", "../../") */
void archive_html_head(
    FILE *fp, const char *title, const char *list, const char *root);
/* archive_html_foot - </main> to </html> */
void archive_html_foot(FILE *fp, const char *root);
/* archive_html_text - UTF-8 text as the body of a post: quoted lines in
 * <blockquote>, URLs linked, addresses obfuscated */
void archive_html_text(FILE *fp, const char *text, size_t len);
/* archive_html_plain - text escaped, addresses obfuscated, no markup */
void archive_html_plain(FILE *fp, const char *text, size_t len);
/* archive_html_css - the stylesheet (style.css) */
extern const char archive_html_css[];

#endif
