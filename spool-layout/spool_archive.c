/*
 * spool_archive.c - a list's archive inbox: the posts accepted for a
 * list whose archive is on, waiting for mj_archive to store them
 * (spool-layout/README, "Archive": A1 here, A3 here, A2 and A4 in
 * archive/).  The inbox is shaped as the digest's collection (posts/,
 * lock), so the collection's functions serve it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "spool_archive.h"
#include "spool_commit.h"
#include "spool_path.h"

/* spool_archive_dir - state/archive/<domain>/<list> */
int
spool_archive_dir(char *buf, size_t len, const char *spool, const char *domain,
    const char *list)
{
	int r = snprintf(buf, len, "%s/%s/%s/%s/%s", spool, SPOOL_STATE,
	    SPOOL_ARCHIVE, domain, list);

	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* spool_archive_collect - A1: the post qname into the inbox by C1-C3;
 * 1 collected, 0 it was already (a first processing run again), -1 */
int
spool_archive_collect(const char *spool, const char *domain, const char *list,
    int dprio, int lprio, const char *qname, const char *text, size_t len)
{
	char dir[PATH_MAX];

	if (spool_archive_dir(dir, sizeof(dir), spool, domain, list) == -1)
		return -1;
	return spool_collect_post(spool, dir, dprio, lprio, qname, text, len);
}

/* spool_archive_done - A3: posts/<entry> unlinked (ENOENT is done); an
 * entry back after a crash is stored already, so the directory's fsync
 * waits for spool_archive_sync after a batch; 0 or -1 */
int
spool_archive_done(const char *dir, const char *entry)
{
	char posts[PATH_MAX], path[PATH_MAX];
	int n;

	n = snprintf(posts, sizeof(posts), "%s/posts", dir);
	if (n < 0 || (size_t)n >= sizeof(posts) ||
	    (n = snprintf(path, sizeof(path), "%s/%s", posts, entry)) < 0 ||
	    (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
}

/* spool_archive_sync - the inbox's removals made durable: posts/
 * fsync'd; 0 or -1 */
int
spool_archive_sync(const char *dir)
{
	char posts[PATH_MAX];
	int n = snprintf(posts, sizeof(posts), "%s/posts", dir);

	if (n < 0 || (size_t)n >= sizeof(posts)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return spool_fsync_dir(posts);
}

/* spool_archive_lock - the inbox's lock, taken without waiting, the
 * inbox made when missing: its descriptor (close it to let go), -2 when
 * another mj_archive holds it, -1 on error; dir (dirlen bytes) set to
 * the inbox */
int
spool_archive_lock(const char *spool, const char *domain, const char *list,
    char *dir, size_t dirlen)
{
	char posts[PATH_MAX];
	int n;

	if (spool_archive_dir(dir, dirlen, spool, domain, list) == -1 ||
	    (n = snprintf(posts, sizeof(posts), "%s/posts", dir)) < 0 ||
	    (size_t)n >= sizeof(posts)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (spool_mkdirs(spool, posts) == -1)
		return -1;
	return spool_digest_lock(dir);
}

/* spool_archive_lists - fn(arg, domain, list) for each list with an
 * inbox directory; fn's -1 stops; 0 or -1 */
int
spool_archive_lists(const char *spool,
    int (*fn)(void *arg, const char *domain, const char *list), void *arg)
{
	return spool_state_lists(spool, SPOOL_ARCHIVE, fn, arg);
}
