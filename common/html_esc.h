/*
 * html_esc.h - text made safe in HTML (html_esc.c).
 */
#ifndef MJQ_HTML_ESC_H
#define MJQ_HTML_ESC_H

#include <stddef.h>
#include <stdio.h>

/* html_esc - n bytes of s into fp as HTML text or a quoted attribute
 * value: & < > " ' escaped, control bytes but \t \n dropped, invalid
 * UTF-8 as U+FFFD */
void html_esc(FILE *fp, const char *s, size_t n);
/* html_str - a NUL-ended string through html_esc */
void html_str(FILE *fp, const char *s);

#endif
