/*
 * archive_list.c - a list's archive opened: its names checked before
 * they touch a path, its config read, its directories made:
 *
 *     [archive] dir/<domain>/<list>/archive.sqlite   the index
 *     [archive] dir/<domain>/<list>/www/             pages (private)
 *     [archive] public_dir/<domain>/<list>/          pages (public)
 */
#include <stdio.h>
#include <string.h>

#include "archive_db.h"
#include "archive_list.h"
#include "archive_write.h"

/* archive_list_path - fmt's path into buf; -1 when too long */
static int
archive_list_path(char *buf, size_t len, const char *a, const char *b,
    const char *c, const char *d)
{
	int n = snprintf(buf, len, "%s/%s/%s%s", a, b, c, d);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* archive_list_open - config, directories, index */
int
archive_list_open(struct archive_list *al, const struct settings *s,
    const struct archive_settings *as, const char *domain, const char *list,
    char *err, size_t errlen)
{
	char db[PATH_MAX];
	const char *why;

	memset(al, 0, sizeof(*al));
	al->s = s;
	al->as = as;
	if ((why = name_check_domain(domain)) != NULL ||
	    (why = name_check_list(list)) != NULL) {
		snprintf(err, errlen, "%s@%s: %s", list, domain, why);
		return -1;
	}
	snprintf(al->domain, sizeof(al->domain), "%s", domain);
	snprintf(al->list, sizeof(al->list), "%s", list);
	if (listconf_load(s, domain, list, &al->lc, err, errlen) == -1)
		return -1;
	if (archive_list_path(al->dir, sizeof(al->dir), as->archive_dir, domain,
		list, "") == -1 ||
	    archive_list_path(db, sizeof(db), as->archive_dir, domain, list,
		"/archive.sqlite") == -1 ||
	    (al->lc.archive_public
		    ? archive_list_path(al->www, sizeof(al->www),
			  as->archive_public_dir, domain, list, "")
		    : archive_list_path(al->www, sizeof(al->www),
			  as->archive_dir, domain, list, "/www")) == -1) {
		snprintf(
		    err, errlen, "%s@%s: archive path too long", list, domain);
		return -1;
	}
	if (archive_write_mkdirs(al->dir, 0750) == -1 ||
	    archive_write_mkdirs(
		al->www, al->lc.archive_public ? 0755 : 0750) == -1) {
		snprintf(err, errlen, "%s or %s: %s", al->dir, al->www,
		    strerror(errno));
		return -1;
	}
	return archive_db_open(db, &al->db, err, errlen);
}

/* archive_list_close - the index closed */
void
archive_list_close(struct archive_list *al)
{
	archive_db_close(al->db);
	al->db = NULL;
}
