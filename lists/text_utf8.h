/*
 * text_utf8.h - text in a declared charset made UTF-8 (text_utf8.c),
 * with glibc's iconv(3).
 */
#ifndef MJQ_TEXT_UTF8_H
#define MJQ_TEXT_UTF8_H

#include <stddef.h>

/* What a conversion met, for the reader's note. */
struct text_utf8_note {
	int unknown;	 /* the charset is unknown: read as UTF-8 */
	size_t replaced; /* bytes not valid in it, each now U+FFFD */
};

int text_utf8(const char *charset, const char *in, size_t len, char **out,
    size_t *outlen, struct text_utf8_note *note);

#endif
