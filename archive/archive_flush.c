/*
 * archive_flush.c - the pages marked dirty written (A4 of
 * archive/README): each page from the index, then one syncfs() for the
 * file system of the pages, then the dirty rows deleted in one
 * transaction.  A crash before the delete writes the pages again.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_db.h"
#include "archive_pages.h"
#include "log.h"

/* archive_flush_one - the page of a dirty key */
static int
archive_flush_one(struct archive_list *al, const char *page)
{
	long long id, k;
	char month[8], view;

	if (strncmp(page, "msg:", 4) == 0)
		return archive_page_msg(al, atoll(page + 4));
	if (strncmp(page, "thread:", 7) == 0)
		return archive_page_thread(al, atoll(page + 7));
	if (sscanf(page, "tpage:%lld:%lld", &id, &k) == 2)
		return archive_page_tpage(al, id, k);
	if (strncmp(page, "month:", 6) == 0)
		return archive_page_month(al, page + 6);
	if (sscanf(page, "mpage:%7[0-9-]:%c:%lld", month, &view, &k) == 3)
		return archive_page_mpage(al, month, view, k);
	if (strncmp(page, "mbox:", 5) == 0)
		return archive_page_mbox(al, page + 5);
	if (strcmp(page, "index") == 0)
		return archive_page_index(al);
	if (strcmp(page, "feed") == 0)
		return archive_page_feed(al);
	if (strcmp(page, "css") == 0)
		return archive_page_css(al);
	log_warnx(
	    "%s@%s: archive: unknown page %s", al->list, al->domain, page);
	return 0;
}

/* archive_flush_keys - the dirty keys (malloc'd vector) */
static int
archive_flush_keys(struct archive_list *al, char ***keys, size_t *n)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	char **nv;
	int k;

	*keys = NULL;
	*n = 0;
	if ((st = archive_db_q(al->db, "SELECT page FROM dirty", "")) == NULL)
		return -1;
	while ((k = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = reallocarray(*keys, cap, sizeof(*nv))) ==
			    NULL)
				break;
			*keys = nv;
		}
		if (((*keys)[*n] = strdup(archive_db_text(st, 0))) == NULL)
			break;
		(*n)++;
	}
	sqlite3_reset(st);
	return k == SQLITE_DONE ? 0 : -1;
}

/* archive_flush_sync - the pages' file system synced */
static int
archive_flush_sync(const struct archive_list *al)
{
	int fd, r;

	if ((fd = open(al->www, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	r = syncfs(fd);
	close(fd);
	return r;
}

/* archive_pages_flush - every dirty page */
long
archive_pages_flush(struct archive_list *al)
{
	char **keys;
	size_t n, i;
	long done = 0;
	int r;

	r = archive_flush_keys(al, &keys, &n);
	for (i = 0; r == 0 && i < n; i++)
		if ((r = archive_flush_one(al, keys[i])) == 0)
			done++;
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	if (r == -1)
		return -1;
	if (n == 0)
		return 0;
	if (archive_flush_sync(al) == -1) {
		log_warn(
		    "%s@%s: archive: syncfs %s", al->list, al->domain, al->www);
		return -1;
	}
	/* a key marked again while the pages were written is in a later
	 * run's transaction only if it came after: none can, under the
	 * inbox lock */
	if (archive_db_do(al->db, "DELETE FROM dirty", "") == -1)
		return -1;
	return done;
}

/* archive_pages_all - every page marked dirty, every mbox to be written
 * whole */
int
archive_pages_all(struct archive_list *al)
{
	return archive_db_do(al->db, "BEGIN IMMEDIATE", "") == -1 ||
		       archive_db_do(al->db,
			   "INSERT OR IGNORE INTO dirty(page) SELECT 'msg:' || "
			   "id FROM msg UNION SELECT 'thread:' || thread FROM "
			   "msg UNION SELECT 'thread:' || old FROM tmoved "
			   "UNION SELECT 'month:' || month FROM month UNION "
			   "SELECT 'mbox:' || month FROM month UNION "
			   "VALUES('index'), ('feed'), ('css')",
			   "") == -1 ||
		       archive_db_do(al->db, "DELETE FROM mbox", "") == -1 ||
		       archive_db_do(al->db, "COMMIT", "") == -1
		   ? -1
		   : 0;
}
