/*
 * archive_list.h - one list's archive as mj_archive works on it
 * (archive_list.c): its configuration, its directories and its index.
 */
#ifndef MJQ_ARCHIVE_LIST_H
#define MJQ_ARCHIVE_LIST_H

#include <limits.h>
#include <sqlite3.h>

#include "archive_settings.h"
#include "lists.h"

struct archive_list {
	const struct settings *s;
	const struct archive_settings *as;
	char domain[NAME_DOMAIN_MAX + 1];
	char list[NAME_LIST_MAX + 1];
	struct listconf lc;
	char dir[PATH_MAX]; /* [archive] dir/<domain>/<list> */
	char www[PATH_MAX]; /* its pages */
	sqlite3 *db;
};

/* archive_list_open - the list's archive, its directories made and its
 * index opened; 0, or -1 with err */
int archive_list_open(struct archive_list *al, const struct settings *s,
    const struct archive_settings *as, const char *domain, const char *list,
    char *err, size_t errlen);
void archive_list_close(struct archive_list *al);

#endif
