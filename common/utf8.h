/*
 * utf8.h - reading UTF-8 (RFC 3629) one code point at a time (utf8.c),
 * with no mail knowledge.
 */
#ifndef MJQ_UTF8_H
#define MJQ_UTF8_H

/* utf8_next - the code point of the multi-byte sequence at *p, *p
 * advanced past it; 0xFFFD and *p advanced by one byte for a byte that
 * does not start a well-formed sequence (an overlong form, a surrogate,
 * past U+10FFFF, cut short).  Reads no further than a NUL. */
unsigned long utf8_next(const unsigned char **p, int *bad);

#endif
