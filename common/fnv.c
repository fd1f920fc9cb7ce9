/*
 * fnv.c - FNV-1a, 64 bits: over a buffer or a string, continuing from h
 * (FNV1A_BASIS to start), so that a key of several fields is hashed
 * without building it.
 */
#include "fnv.h"

/* fnv1a - h continued over len bytes of data */
uint64_t
fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data, *end = p + len;

	while (p < end)
		h = fnv1a_byte(h, *p++);
	return h;
}

/* fnv1a_str - h continued over the bytes of s, without its NUL */
uint64_t
fnv1a_str(uint64_t h, const char *s)
{
	while (*s != '\0')
		h = fnv1a_byte(h, (unsigned char)*s++);
	return h;
}
