/*
 * subs_line.h - one line of a subscribers file (subs_line.c): where its
 * address is, and where its comment begins.
 */
#ifndef MJQ_SUBS_LINE_H
#define MJQ_SUBS_LINE_H

#include <stddef.h>

size_t subs_line_len(const char *line, size_t len);
size_t subs_line_addr(const char *line, size_t len, size_t *start);

#endif
