/*
 * archive_mbox.c - a month's posts as an mbox download,
 * <YYYY-MM>/<YYYY-MM>.mbox, in arrival order (mboxrd: a body line that
 * reads ">*From " gets one more '>').  A new post is appended, not the
 * month rewritten: the index keeps, per month, the mbox's inode, its
 * length in whole posts and its last post (table mbox, archive/README
 * A4).  Each post goes in one write(); the file is fdatasync'd before
 * its new length is recorded, so a tail past the recorded length is a
 * post a crash cut (or one written again): the next write cuts it
 * first.  With no record, or a file that is not the recorded one (gone,
 * shorter, another inode), the month is written whole (tmp, fsync,
 * rename, the directory fsync'd): so does mj_archive remove, which
 * drops the record of the post's month.
 */
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archive_db.h"
#include "archive_pages.h"
#include "archive_write.h"
#include "log.h"

/* The mbox of a month as the index records it. */
struct archive_mbox {
	long long last; /* the last post in it (by id) */
	long long size; /* its bytes, every post whole */
	long long ino;
};

/* archive_mbox_post - one post in mboxrd form (st: raw, from_addr, date) */
static void
archive_mbox_post(FILE *fp, sqlite3_stmt *st)
{
	const char *p = sqlite3_column_blob(st, 0), *end, *nl, *q, *start;
	const char *from = archive_db_text(st, 1);
	time_t t = (time_t)sqlite3_column_int64(st, 2);
	char when[64];
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm) == 0)
		snprintf(when, sizeof(when), "Thu Jan  1 00:00:00 1970");
	fprintf(fp, "From %s %s\n",
	    from[0] && strpbrk(from, " \t\r\n") == NULL ? from
							: "MAILER-DAEMON",
	    when);
	if ((start = p) == NULL || sqlite3_column_bytes(st, 0) == 0) {
		fputc('\n', fp);
		return;
	}
	end = p + sqlite3_column_bytes(st, 0);
	for (; p < end; p = nl ? nl + 1 : end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		for (q = p; q < end && *q == '>'; q++)
			;
		if (end - q >= 5 && memcmp(q, "From ", 5) == 0)
			fputc('>', fp);
		fwrite(p, 1, (size_t)((nl ? nl + 1 : end) - p), fp);
	}
	if (end > start && end[-1] != '\n')
		fputc('\n', fp);
	fputc('\n', fp);
}

/* The month's posts after a given one, in arrival order (a removed
 * post's row comes, without its text, to count as seen); by the
 * primary key, not the month's index, so that an append reads only the
 * new posts. */
static const char archive_mbox_sql[] =
    "SELECT raw, from_addr, date, id, removed FROM msg LEFT JOIN raw "
    "USING(id) WHERE id > ? AND +month = ? ORDER BY id";

/* archive_mbox_append_one - the post of st as one write() at the end
 * of fd; 0 or -1 */
static int
archive_mbox_append_one(int fd, sqlite3_stmt *st, long long *size)
{
	char *buf = NULL;
	size_t len = 0, off;
	ssize_t w;
	FILE *mf;

	if ((mf = open_memstream(&buf, &len)) == NULL)
		return -1;
	archive_mbox_post(mf, st);
	if (fclose(mf) != 0) {
		free(buf);
		return -1;
	}
	for (off = 0; off < len; off += (size_t)w)
		if ((w = write(fd, buf + off, len - off)) == -1 &&
		    errno != EINTR) {
			free(buf);
			return -1;
		} else if (w == -1)
			w = 0;
	free(buf);
	*size += (long long)len;
	return 0;
}

/* archive_mbox_record - the month's mbox as it now is */
static int
archive_mbox_record(
    struct archive_list *al, const char *month, const struct archive_mbox *mb)
{
	return archive_db_do(al->db,
	    "INSERT OR REPLACE INTO mbox(month, last, size, ino) "
	    "VALUES(?, ?, ?, ?)",
	    "tiii", month, mb->last, mb->size, mb->ino);
}

/* archive_mbox_append - the posts after mb->last appended to the file
 * at path (the recorded one, its torn tail cut); 1 done, 0 when the
 * file is not the recorded one (write it whole), -1 */
static int
archive_mbox_append(struct archive_list *al, const char *path,
    const char *month, struct archive_mbox *mb)
{
	sqlite3_stmt *st;
	struct stat sb;
	int fd, k, n = 0;

	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return errno == ENOENT || errno == ELOOP ? 0 : -1;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (long long)sb.st_ino != mb->ino || sb.st_size < mb->size) {
		close(fd);
		return 0;
	}
	if (sb.st_size > mb->size) {
		log_warnx("%s@%s: %s: a torn post after byte %lld cut",
		    al->list, al->domain, path, mb->size);
		if (ftruncate(fd, (off_t)mb->size) == -1)
			goto fail;
		n++;
	}
	if (lseek(fd, (off_t)mb->size, SEEK_SET) == -1 ||
	    (st = archive_db_q(
		 al->db, archive_mbox_sql, "it", mb->last, month)) == NULL)
		goto fail;
	while ((k = sqlite3_step(st)) == SQLITE_ROW) {
		mb->last = sqlite3_column_int64(st, 3);
		if (sqlite3_column_int64(st, 4) != 0)
			continue;
		n++;
		if (archive_mbox_append_one(fd, st, &mb->size) == -1)
			break;
	}
	sqlite3_reset(st);
	if (k != SQLITE_DONE || (n > 0 && fdatasync(fd) == -1))
		goto fail;
	if (close(fd) == -1)
		return -1;
	return archive_mbox_record(al, month, mb) == -1 ? -1 : 1;
fail:
	close(fd);
	return -1;
}

/* archive_mbox_whole - the month written whole (tmp, fsync, rename,
 * the directory fsync'd), then recorded */
static int
archive_mbox_whole(struct archive_list *al, const char *rel, const char *month)
{
	struct archive_mbox mb = {0, 0, 0};
	struct archive_page pg;
	sqlite3_stmt *st;
	struct stat sb;
	char *slash;
	int k, dfd;

	if (archive_write_open(&pg, al->www, rel, ARCHIVE_PAGE_MODE(al)) ==
	    -1) {
		log_warn("%s@%s: %s", al->list, al->domain, rel);
		return -1;
	}
	if ((st = archive_db_q(al->db, archive_mbox_sql, "it", 0LL, month)) ==
	    NULL)
		k = SQLITE_ERROR;
	else {
		while ((k = sqlite3_step(st)) == SQLITE_ROW) {
			mb.last = sqlite3_column_int64(st, 3);
			if (sqlite3_column_int64(st, 4) == 0)
				archive_mbox_post(pg.fp, st);
		}
		sqlite3_reset(st);
	}
	if (k != SQLITE_DONE || fflush(pg.fp) != 0 ||
	    fdatasync(fileno(pg.fp)) == -1 || fstat(fileno(pg.fp), &sb) == -1) {
		log_warn("%s@%s: %s", al->list, al->domain, rel);
		archive_write_abort(&pg);
		return -1;
	}
	mb.size = (long long)sb.st_size;
	mb.ino = (long long)sb.st_ino;
	if (archive_write_close(&pg) == -1)
		return -1;
	if ((slash = strrchr(pg.path, '/')) != NULL)
		*slash = '\0';
	if ((dfd = open(pg.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	k = fsync(dfd);
	close(dfd);
	return k == -1 ? -1 : archive_mbox_record(al, month, &mb);
}

/* archive_page_mbox - <month>/<month>.mbox brought up to date */
int
archive_page_mbox(struct archive_list *al, const char *month)
{
	struct archive_mbox mb = {0, 0, 0};
	sqlite3_stmt *st;
	char rel[64], path[PATH_MAX];
	int k;

	if (!archive_month_ok(month))
		return 0;
	snprintf(rel, sizeof(rel), "%s/%s.mbox", month, month);
	if (snprintf(path, sizeof(path), "%s/%s", al->www, rel) >=
	    (int)sizeof(path))
		return -1;
	if ((st = archive_db_q(al->db,
		 "SELECT last, size, ino FROM mbox WHERE month = ?", "t",
		 month)) == NULL)
		return -1;
	if ((k = sqlite3_step(st)) == SQLITE_ROW) {
		mb.last = sqlite3_column_int64(st, 0);
		mb.size = sqlite3_column_int64(st, 1);
		mb.ino = sqlite3_column_int64(st, 2);
	}
	sqlite3_reset(st);
	if (k == SQLITE_ROW &&
	    (k = archive_mbox_append(al, path, month, &mb)) != 0)
		return k == 1 ? 0 : -1;
	if (k != 0 && k != SQLITE_DONE)
		return -1;
	return archive_mbox_whole(al, rel, month);
}
