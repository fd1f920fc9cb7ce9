/*
 * archive_remove.c - a post taken out.  Its row stays, so its replies
 * keep their place in the thread and its address answers with a page
 * that says it was removed; its text (raw), its search entry, its
 * author and subject go in one transaction, with the pages that showed
 * it marked dirty (its own, its parent's and replies', its thread, its
 * month and mbox, the index, the feed; the mbox's record dropped, so
 * that it is written whole without the post); then its attachments' files are
 * unlinked and the pages written.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "archive_db.h"
#include "archive_pages.h"
#include "archive_remove.h"
#include "log.h"

/* archive_remove_rows - the transaction: 0 or -1 */
static int
archive_remove_rows(struct archive_list *al, long long id)
{
	return archive_db_do(al->db,
		   "INSERT OR IGNORE INTO dirty(page) SELECT 'msg:' || id "
		   "FROM msg WHERE id = ?1 OR parent = ?1 OR id = (SELECT "
		   "parent FROM msg WHERE id = ?1) UNION SELECT 'thread:' || "
		   "thread FROM msg WHERE id = ?1 UNION SELECT 'month:' || "
		   "month FROM msg WHERE id = ?1 UNION SELECT 'mbox:' || "
		   "month FROM msg WHERE id = ?1 UNION VALUES('index'), "
		   "('feed')",
		   "i", id) == -1 ||
		       archive_db_do(al->db,
			   "DELETE FROM mbox WHERE month = (SELECT month FROM "
			   "msg WHERE id = ?)",
			   "i", id) == -1 ||
		       archive_db_do(al->db, "DELETE FROM raw WHERE id = ?",
			   "i", id) == -1 ||
		       archive_db_do(al->db, "DELETE FROM fts WHERE rowid = ?",
			   "i", id) == -1 ||
		       archive_db_do(al->db,
			   "UPDATE msg SET removed = 1, subject = '(removed)', "
			   "from_name = '', from_addr = '' WHERE id = ?",
			   "i", id) == -1
		   ? -1
		   : 0;
}

/* archive_remove_files - msg/<name>/att-* unlinked */
static int
archive_remove_files(struct archive_list *al, const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (snprintf(dir, sizeof(dir), "%s/msg/%s", al->www, name) >=
	    (int)sizeof(dir))
		return -1;
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "att-", 4) == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (unlink(path) == -1 && errno != ENOENT)
				r = -1;
		}
	closedir(d);
	return r;
}

/* archive_remove - the post out */
int
archive_remove(struct archive_list *al, const char *msgid)
{
	char id[ARCHIVE_URL_MSGID_MAX + 1], name[ARCHIVE_NAME_MAX + 1];
	const char *p = msgid;
	long long n;
	size_t len;
	int k;

	while (*p == '<' || *p == ' ')
		p++;
	snprintf(id, sizeof(id), "%s", p);
	if ((len = strlen(id)) > 0 && id[len - 1] == '>')
		id[len - 1] = '\0';
	archive_url_name(msgid, name, sizeof(name));
	if (archive_db_do(al->db, "BEGIN IMMEDIATE", "") == -1)
		return -1;
	if ((k = archive_db_int(al->db, &n,
		 "SELECT id FROM msg WHERE msgid = ? OR name = ?", "tt", id,
		 name)) != 1 ||
	    archive_remove_rows(al, n) == -1) {
		(void)archive_db_do(al->db, "ROLLBACK", "");
		return k == 0 ? 0 : -1;
	}
	if (archive_db_do(al->db, "COMMIT", "") == -1)
		return -1;
	log_info("%s@%s: archive: post %lld (%s) removed", al->list, al->domain,
	    n, name);
	if (archive_remove_files(al, name) == -1)
		log_warn("%s@%s: archive: attachments of %s", al->list,
		    al->domain, name);
	return archive_pages_flush(al) == -1 ? -1 : 1;
}
