/*
 * io_lines.h - a file of one record a line, read into an array
 * (io_lines.c).
 */
#ifndef MJQ_IO_LINES_H
#define MJQ_IO_LINES_H

#include <stddef.h>

/* io_lines_load - every line of path for which parse(line, rec, arg)
 * returns 0, as a record of size bytes in *v (malloc'd, n of them, in
 * the file's order); a missing file has none.  0, or -1 with errno */
int io_lines_load(const char *path, size_t size,
    int (*parse)(char *line, void *rec, void *arg), void *arg, void **v,
    size_t *n);

#endif
