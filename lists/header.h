/*
 * header.h - reading a stored message's header (header.c): where the
 * body starts, Return-Path, a field's value, the address in a value.
 */
#ifndef MJQ_HEADER_H
#define MJQ_HEADER_H

#include <stddef.h>

const char *header_end(const char *text, size_t len);
const char *header_field_end(const char *p, const char *hend);
const char *header_next_line(const char *p, const char *end);
int header_return_path(const char *text, size_t len, char *out, size_t outlen);
size_t header_sent_size(const char *text, size_t len);
/* header_value - the unfolded value of the first field called name */
int header_value(
    const char *text, size_t len, const char *name, char *out, size_t outlen);
/* header_addr - the address in a From:/To: value */
int header_addr(const char *value, char *out, size_t outlen);

#endif
