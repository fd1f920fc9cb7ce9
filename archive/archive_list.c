/*
 * archive_list.c - a list's archive opened: its names checked before
 * they touch a path, its config read, its directories made:
 *
 *     [archive] dir/<domain>/<list>/archive.sqlite   the index
 *     [archive] dir/<domain>/<list>/www/             pages (private)
 *     [archive] public_dir/<domain>/<list>/          pages (public)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_db.h"
#include "archive_list.h"
#include "archive_write.h"
#include "spool_archive.h"

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
    enum archive_list_mode mode, char *err, size_t errlen)
{
	char db[PATH_MAX];
	const char *why;

	memset(al, 0, sizeof(*al));
	al->lockfd = -1;
	al->s = s;
	al->as = as;
	if ((why = name_check_domain(domain)) != NULL ||
	    (why = name_check_list(list)) != NULL) {
		snprintf(err, errlen, "%s@%s: %s", list, domain, why);
		return -1;
	}
	snprintf(al->domain, sizeof(al->domain), "%s", domain);
	snprintf(al->list, sizeof(al->list), "%s", list);
	if (mode == ARCHIVE_LIST_WRITE &&
	    (al->lockfd = spool_archive_lock(s->spool_dir, domain, list,
		 al->inbox, sizeof(al->inbox))) == -2)
		return -2;
	if (mode == ARCHIVE_LIST_WRITE && al->lockfd == -1) {
		snprintf(err, errlen, "%s@%s: archive inbox lock: %s", list,
		    domain, strerror(errno));
		return -1;
	}
	if (listconf_load(s, domain, list, &al->lc, err, errlen) == -1) {
		archive_list_close(al);
		return -1;
	}
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
	if (mode == ARCHIVE_LIST_WRITE &&
	    (archive_write_mkdirs(al->dir, 0750) == -1 ||
		archive_write_mkdirs(
		    al->www, al->lc.archive_public ? 0755 : 0750) == -1)) {
		snprintf(err, errlen, "%s or %s: %s", al->dir, al->www,
		    strerror(errno));
		archive_list_close(al);
		return -1;
	}
	if (archive_db_open(
		db, mode == ARCHIVE_LIST_READ, &al->db, err, errlen) == -1) {
		archive_list_close(al);
		return -1;
	}
	return 0;
}

/* archive_list_close - the index closed, the lock let go */
void
archive_list_close(struct archive_list *al)
{
	archive_db_close(al->db);
	al->db = NULL;
	if (al->lockfd >= 0)
		close(al->lockfd);
	al->lockfd = -1;
}

/* archive_list_pending - posts in the inbox */
int
archive_list_pending(
    const struct settings *s, const char *domain, const char *list)
{
	char inbox[PATH_MAX];
	struct spool_digest_entry *e;
	size_t n;

	if (spool_archive_dir(
		inbox, sizeof(inbox), s->spool_dir, domain, list) == -1 ||
	    spool_digest_entries(inbox, &e, &n) == -1)
		return -1;
	free(e);
	return n > 0;
}

/* archive_list_base - the list's archive_url, its variables replaced,
 * into buf ("" when it has none) */
void
archive_list_base(const struct archive_list *al, char *buf, size_t len)
{
	FILE *m;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (al->lc.archive_url[0] == '\0' ||
	    (m = fmemopen(buf, len, "w")) == NULL)
		return;
	archive_url_put(m, al->lc.archive_url, al->list, al->domain, NULL);
	if (fclose(m) != 0)
		buf[0] = '\0';
}
