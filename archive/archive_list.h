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
	char dir[PATH_MAX];   /* [archive] dir/<domain>/<list> */
	char www[PATH_MAX];   /* its pages */
	char inbox[PATH_MAX]; /* its inbox in the spool */
	int lockfd;	      /* the inbox's lock, held while open */
	long batch;	      /* posts in the open transaction (import) */
	int bulk;	      /* an import: whole threads and months marked */
	sqlite3 *db;
};

/* How a list's archive is opened. */
enum archive_list_mode {
	ARCHIVE_LIST_WRITE, /* the lock, the directories, the index made */
	ARCHIVE_LIST_READ   /* the index read as it is (search): no lock */
};

/* archive_list_open - the list's archive (ARCHIVE_LIST_WRITE: its
 * inbox's lock taken without waiting, its directories made); its index
 * opened; 0, -2 when another mj_archive holds the lock, or -1 with err */
int archive_list_open(struct archive_list *al, const struct settings *s,
    const struct archive_settings *as, const char *domain, const char *list,
    enum archive_list_mode mode, char *err, size_t errlen);
/* archive_list_close - the index closed, the lock let go */
void archive_list_close(struct archive_list *al);
/* archive_list_base - the list's archive_url expanded into buf ("": none) */
void archive_list_base(const struct archive_list *al, char *buf, size_t len);
/* archive_list_pending - posts wait in the list's inbox: 1, 0, or -1 */
int archive_list_pending(
    const struct settings *s, const char *domain, const char *list);

#endif
