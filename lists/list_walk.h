/*
 * list_walk.h - every list of the lists directory (list_walk.c), for the
 * operator's views of them all.
 */
#ifndef MJQ_LIST_WALK_H
#define MJQ_LIST_WALK_H

#include "settings.h"

/* list_walk - fn(arg, domain, list) for each list: a directory
 * <lists>/<domain>/<list> with a subscribers file, domains and lists in
 * name order; fn returns 0 to go on, else the walk stops and returns
 * that.  0 done, -1 the lists directory cannot be read */
int list_walk(const struct settings *s,
    int (*fn)(void *arg, const char *domain, const char *list), void *arg);

#endif
