/*
 * list_path.h - where a domain's and a list's files are (list_path.c).
 */
#ifndef MJQ_LIST_PATH_H
#define MJQ_LIST_PATH_H

#include <stddef.h>

struct settings;

/* list_path - <lists>/<domain>[/<list>][/<file>] into buf: list NULL
 * for the domain's directory, file NULL for the directory itself; 0, or
 * -1 when it does not fit */
int list_path(char *buf, size_t len, const struct settings *s,
    const char *domain, const char *list, const char *file);

#endif
