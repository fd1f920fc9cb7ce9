/*
 * spool_commit.c - put a complete file into the spool, durably.
 *
 * Each function moves the file one state forward (see spool_commit.h and
 * the numbered states in spool-layout/README) and, on failure, leaves it
 * in a state the sweeper or the caller's spool_tmp_discard cleans up.  No
 * step is skipped for speed: the MTA is told "queued" only after the
 * final directory is on disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "io.h"
#include "spool_commit.h"
#include "spool_path.h"

/* spool_tmp_open - state 1: create tmp/<unique> with O_EXCL */
int
spool_tmp_open(struct spool_tmp *t, const char *spool)
{
	struct timeval tv;
	int r;

	t->fd = -1;
	t->spool = spool;
	gettimeofday(&tv, NULL);
	r = snprintf(t->path, sizeof(t->path), "%s/%s/%lld.%06ld.%ld.%08x",
	    spool, SPOOL_TMP, (long long)tv.tv_sec, (long)tv.tv_usec,
	    (long)getpid(), arc4random());
	if (r < 0 || (size_t)r >= sizeof(t->path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((t->fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		 SPOOL_FILE_MODE)) == -1)
		return -1;
	return 0;
}

/* spool_tmp_sync - state 3: the data is on disk and the file closed */
int
spool_tmp_sync(struct spool_tmp *t)
{
	int fd = t->fd;

	t->fd = -1;
	return io_fsync_close(fd);
}

/* spool_fsync_dir - make a directory's entries durable */
int
spool_fsync_dir(const char *dir)
{
	return io_fsync_dir(dir);
}

/* spool_mkdirs - create the missing levels of dir below root, each made
 * durable in its parent so the commit that follows cannot lose it */
int
spool_mkdirs(const char *root, const char *dir)
{
	char path[PATH_MAX];
	size_t rootlen = strlen(root);
	char *p;

	if (strlcpy(path, dir, sizeof(path)) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (strncmp(path, root, rootlen) != 0 || path[rootlen] != '/') {
		errno = EINVAL;
		return -1;
	}
	for (p = path + rootlen + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(path, SPOOL_DIR_MODE) == 0) {
			char *slash = strrchr(path, '/');
			*slash = '\0';
			if (spool_fsync_dir(path) == -1)
				return -1;
			*slash = '/';
		} else if (errno != EEXIST) {
			return -1;
		}
		if ((*p = c) == '\0')
			return 0;
	}
}

/* spool_tmp_finish - state 4 tail: directory durable, tmp name gone */
static int
spool_tmp_finish(struct spool_tmp *t, const char *dir)
{
	if (spool_fsync_dir(dir) == -1)
		return -1;
	/* The final name is durable; a tmp name left by a failure here is a
	 * harmless second link that the sweeper removes. */
	if (unlink(t->path) == -1)
		return -1;
	t->path[0] = '\0';
	return 0;
}

/* spool_name_free - 1 when the name of the message path final (under
 * one of spool_message_tops) is free under every one of them: no
 * message, state file or attempt count of that name in QUEUE/, HOLD/ or
 * BAD/ (a message moves between them keeping its name, so a new message
 * that took a held one's name would be taken for it; and one that took
 * the name of a state left behind by a crash would inherit its
 * progress).  0 when taken (errno EEXIST), -1 when that cannot be told */
int
spool_name_free(const char *spool, const char *final)
{
	char msg[PATH_MAX], path[PATH_MAX];
	const char *rest;
	struct stat sb;
	size_t n = strlen(spool), i;
	int r;

	if (strncmp(final, spool, n) != 0 || final[n] != '/' ||
	    (rest = strchr(final + n + 1, '/')) == NULL) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; spool_message_tops[i] != NULL; i++) {
		r = snprintf(msg, sizeof(msg), "%s/%s%s", spool,
		    spool_message_tops[i], rest);
		if (r < 0 || (size_t)r >= sizeof(msg)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (lstat(msg, &sb) == 0)
			goto taken;
		if (errno != ENOENT ||
		    spool_state_path(path, sizeof(path), msg) == -1)
			return -1;
		if (lstat(path, &sb) == 0)
			goto taken;
		if (errno != ENOENT ||
		    spool_try_path(path, sizeof(path), msg) == -1)
			return -1;
		if (lstat(path, &sb) == 0)
			goto taken;
		if (errno != ENOENT)
			return -1;
	}
	return 1;
taken:
	errno = EEXIST;
	return 0;
}

/* spool_tmp_link - state 4: link under a unique name in dir (created if
 * needed); the name's letters are bumped on EEXIST, and when the name is
 * not free in every top directory (spool_name_free) */
int
spool_tmp_link(struct spool_tmp *t, const char *dir, struct spool_name *name,
    char *final, size_t finallen)
{
	char base[SPOOL_NAME_MAX + 1];
	int made = 0, r;

	for (;;) {
		if (spool_name_format(name, base, sizeof(base)) == -1)
			return -1;
		r = snprintf(final, finallen, "%s/%s", dir, base);
		if (r < 0 || (size_t)r >= finallen) {
			errno = ENAMETOOLONG;
			return -1;
		}
		/* A missing directory leaves the name free there. */
		if ((r = spool_name_free(t->spool, final)) == -1)
			return -1;
		if (r == 1 && link(t->path, final) == 0)
			break;
		if (r == 1 && errno == ENOENT && !made) {
			/* First message for this domain, list or function. */
			if (spool_mkdirs(t->spool, dir) == -1)
				return -1;
			made = 1;
			continue;
		}
		if (errno != EEXIST || spool_name_next(name) == -1)
			return -1;
	}
	return spool_tmp_finish(t, dir);
}

/* spool_tmp_link_as - state 4 under a fixed final path (no renaming) */
int
spool_tmp_link_as(struct spool_tmp *t, const char *final)
{
	char dir[PATH_MAX];
	char *slash;

	if (strlcpy(dir, final, sizeof(dir)) >= sizeof(dir) ||
	    (slash = strrchr(dir, '/')) == NULL) {
		errno = EINVAL;
		return -1;
	}
	*slash = '\0';
	if (link(t->path, final) == -1)
		return -1;
	return spool_tmp_finish(t, dir);
}

/* spool_tmp_spill - an unlinked scratch file in tmp/ (read-write, mode
 * 0600), for data a runner keeps out of core during a pass; it has no
 * name, so it vanishes with its descriptor and a crash leaves nothing.
 * A file system without O_TMPFILE gets a named file, unlinked at once. */
int
spool_tmp_spill(const char *spool)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int fd, r;

	if (spool_path(dir, sizeof(dir), spool, SPOOL_TMP) == -1)
		return -1;
	r = snprintf(path, sizeof(path), "%s/spill.XXXXXX", dir);
	if (r < 0 || (size_t)r >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd == -1 && (errno == EOPNOTSUPP || errno == EISDIR) &&
	    (fd = mkostemp(path, O_CLOEXEC)) != -1 && unlink(path) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* spool_tmp_put - states 1 to 3 for a text in memory: a tmp file that
 * holds it, synced and closed; on failure nothing is left */
int
spool_tmp_put(
    struct spool_tmp *t, const char *spool, const char *buf, size_t len)
{
	if (spool_tmp_open(t, spool) == -1)
		return -1;
	if (io_write_all(t->fd, buf, len) == -1 || spool_tmp_sync(t) == -1) {
		spool_tmp_discard(t);
		return -1;
	}
	return 0;
}

/* spool_tmp_discard - give up: remove the tmp file, keep errno */
void
spool_tmp_discard(struct spool_tmp *t)
{
	int saved = errno;

	if (t->fd != -1)
		close(t->fd);
	t->fd = -1;
	if (t->path[0] != '\0')
		unlink(t->path);
	t->path[0] = '\0';
	errno = saved;
}
