/*
 * dkim_canon.h - DKIM relaxed canonicalization (dkim_canon.c).
 */
#ifndef MJQ_DKIM_CANON_H
#define MJQ_DKIM_CANON_H

#include <stddef.h>

/* A header field of a message text: its bytes, continuation lines and
 * line end included. */
struct dkim_field {
	const char *p;
	size_t len;
	size_t namelen; /* the name before ':' (len when there is none) */
};

typedef void dkim_canon_out(void *arg, const void *p, size_t n);

size_t dkim_canon_fields(const char *text, size_t len, struct dkim_field *f,
    size_t max, const char **body);
size_t dkim_canon_header(const char *p, size_t len, char *out);
void dkim_canon_body(const char *p, size_t len, dkim_canon_out *out, void *arg);

#endif
