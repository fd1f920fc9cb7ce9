/*
 * header.h - reading a stored message's header (header.c).
 */
#ifndef MJQ_HEADER_H
#define MJQ_HEADER_H

#include <stddef.h>

const char *header_end(const char *text, size_t len);
const char *header_field_end(const char *p, const char *hend);
int header_return_path(const char *text, size_t len, char *out, size_t outlen);
size_t header_sent_size(const char *text, size_t len);

#endif
