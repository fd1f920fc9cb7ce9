/*
 * html_text.h - the text of UTF-8 HTML (html_text.c).
 */
#ifndef MJQ_HTML_TEXT_H
#define MJQ_HTML_TEXT_H

#include <stddef.h>

/* html_text - UTF-8 HTML to its text, malloc'd in *out; 0 or -1 */
int html_text(const char *html, size_t len, char **out, size_t *outlen);

#endif
