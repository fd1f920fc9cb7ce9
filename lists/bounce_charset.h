/*
 * bounce_charset.h - a report's text in UTF-8 (bounce_charset.c), so
 * that one rule reads a reason whatever charset the MTA wrote it in.
 */
#ifndef MJQ_BOUNCE_CHARSET_H
#define MJQ_BOUNCE_CHARSET_H

#include <stddef.h>

/* bounce_charset_utf8 - *text (len bytes, malloc'd) in charset replaced
 * by its UTF-8 form; unchanged when the charset is US-ASCII, UTF-8,
 * unknown or the text does not convert.  -1 out of memory. */
int bounce_charset_utf8(const char *charset, char **text, size_t *len);

#endif
