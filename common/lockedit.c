/*
 * lockedit.c - rewrite a small text file under a lock, atomically.
 *
 * The states of a rewrite (a crash in any one leaves the old or the new
 * file whole, never a mix):
 *   1. flock LOCK_EX on <file>.lock (created if missing), bounded wait;
 *      flock needs only an open file, so a lock file this user may not
 *      write (made by root's "flock ... vi") is opened read-only
 *   2. the file read whole (missing = empty)
 *   3. <file>.tmp written and fsync'd (a stale one from a crash is
 *      truncated: only the lock holder writes it)
 *   4. rename(<file>.tmp, <file>); fsync of the directory
 *   5. the lock dropped (close)
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "lockedit.h"

/* lockedit_lockfile - open (or create) the lock file; read-only when
 * this user may not write it: flock works on any open file */
static int
lockedit_lockfile(const char *lpath)
{
	int fd;

	if ((fd = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC, 0640)) != -1)
		return fd;
	if (errno != EACCES && errno != EPERM && errno != EROFS)
		return -1;
	return open(lpath, O_RDONLY | O_CLOEXEC);
}

/* lockedit_flock - flock(fd, op) (LOCK_EX or LOCK_SH), waiting at most
 * LOCKEDIT_WAIT_MS; 0, or -1 with errno (ETIMEDOUT: still held) */
int
lockedit_flock(int fd, int op)
{
	struct timespec ts = {0, 5 * 1000 * 1000};
	int waited = 0;

	while (flock(fd, op | LOCK_NB) == -1) {
		if ((errno != EWOULDBLOCK && errno != EINTR) ||
		    waited >= LOCKEDIT_WAIT_MS) {
			errno = errno == EWOULDBLOCK ? ETIMEDOUT : errno;
			return -1;
		}
		nanosleep(&ts, NULL);
		waited += 5;
	}
	return 0;
}

/* lockedit_lock - state 1: the lock, waiting at most LOCKEDIT_WAIT_MS */
static int
lockedit_lock(const char *path)
{
	char lpath[PATH_MAX];
	int fd;

	if ((size_t)snprintf(lpath, sizeof(lpath), "%s.lock", path) >=
	    sizeof(lpath)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = lockedit_lockfile(lpath)) == -1)
		return -1;
	if (lockedit_flock(fd, LOCK_EX) == -1) {
		close(fd); /* keeps errno */
		return -1;
	}
	return fd;
}

/* lockedit_read - state 2: the whole file, or "" when there is none */
static int
lockedit_read(struct lockedit *le)
{
	struct stat sb;
	ssize_t n;
	size_t got = 0;
	int fd;

	if ((fd = open(le->path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno != ENOENT)
			return -1;
		return (le->text = calloc(1, 1)) == NULL ? -1 : 0;
	}
	if (fstat(fd, &sb) == -1) {
		close(fd);
		return -1;
	}
	if (sb.st_size > LOCKEDIT_MAX) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	if ((le->text = malloc((size_t)sb.st_size + 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (got < (size_t)sb.st_size &&
	       (n = read(fd, le->text + got, (size_t)sb.st_size - got)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	le->text[got] = '\0';
	le->len = got;
	return 0;
}

/* lockedit_open - lock path and read it; -1 with errno */
int
lockedit_open(struct lockedit *le, const char *path)
{
	if (lockedit_hold(le, path) == -1)
		return -1;
	if (lockedit_read(le) == -1) {
		lockedit_close(le);
		return -1;
	}
	return 0;
}

/* lockedit_hold - state 1 only: path's lock, for a read-decide-write
 * over other files (the text stays NULL; lockedit_close drops it) */
int
lockedit_hold(struct lockedit *le, const char *path)
{
	memset(le, 0, sizeof(*le));
	if (strlcpy(le->path, path, sizeof(le->path)) >= sizeof(le->path)) {
		le->lockfd = -1;
		errno = ENAMETOOLONG;
		return -1;
	}
	return (le->lockfd = lockedit_lock(path)) == -1 ? -1 : 0;
}

/* lockedit_tmp_name - "<file>.tmp" */
static int
lockedit_tmp_name(const struct lockedit *le, char *tmp, size_t len)
{
	if ((size_t)snprintf(tmp, len, "%s.tmp", le->path) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* lockedit_tmp_open - state 3 begins: <file>.tmp created with the
 * file's mode (an administrator's chmod survives the rewrite), open
 * for writing; NULL with errno */
FILE *
lockedit_tmp_open(struct lockedit *le)
{
	char tmp[PATH_MAX];
	struct stat sb;
	mode_t mode = 0640;
	FILE *fp;
	int fd;

	if (le->lockfd == -1) {
		errno = EBADF;
		return NULL;
	}
	if (lockedit_tmp_name(le, tmp, sizeof(tmp)) == -1)
		return NULL;
	if (stat(le->path, &sb) == 0)
		mode = sb.st_mode & 07777;
	if ((fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		 mode)) == -1)
		return NULL;
	if (fchmod(fd, mode) == -1 || (fp = fdopen(fd, "w+")) == NULL) {
		close(fd);
		unlink(tmp);
		return NULL;
	}
	return fp;
}

/* lockedit_tmp_abort - the new text given up: the file stays as it is */
void
lockedit_tmp_abort(struct lockedit *le, FILE *fp)
{
	char tmp[PATH_MAX];
	int saved = errno;

	fclose(fp);
	if (lockedit_tmp_name(le, tmp, sizeof(tmp)) == 0)
		unlink(tmp);
	errno = saved;
}

/* lockedit_tmp_commit - states 3 and 4: what was written to fp
 * flushed, fsync'd and renamed over the file; fp is closed either way */
int
lockedit_tmp_commit(struct lockedit *le, FILE *fp)
{
	char tmp[PATH_MAX];

	if (lockedit_tmp_name(le, tmp, sizeof(tmp)) == -1 ||
	    fflush(fp) == EOF || ferror(fp) || fsync(fileno(fp)) == -1) {
		lockedit_tmp_abort(le, fp);
		return -1;
	}
	if (fclose(fp) == EOF || rename(tmp, le->path) == -1) {
		unlink(tmp);
		return -1;
	}
	return io_fsync_parent(le->path);
}

/* lockedit_commit - states 3 and 4: the new text replaces the file */
int
lockedit_commit(struct lockedit *le, const char *text, size_t len)
{
	FILE *fp;

	if ((fp = lockedit_tmp_open(le)) == NULL)
		return -1;
	if (len > 0 && fwrite(text, 1, len, fp) != len) {
		lockedit_tmp_abort(le, fp);
		return -1;
	}
	return lockedit_tmp_commit(le, fp);
}

/* lockedit_overwrite - the new text written over the file in place,
 * still under the lock: no <file>.tmp, no rename, no fsync.  Only for a
 * file whose loss forgets nothing that matters (request counts): a crash
 * between the write and the truncate leaves the old text's tail after
 * the new, a power loss any mix, so its reader skips lines it cannot
 * parse and takes the largest of two counts */
int
lockedit_overwrite(struct lockedit *le, const char *text, size_t len)
{
	int fd;

	if (le->lockfd == -1) {
		errno = EBADF;
		return -1;
	}
	if ((fd = open(le->path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		 0640)) == -1)
		return -1;
	if (io_write_all(fd, text, len) == -1 ||
	    ftruncate(fd, (off_t)len) == -1) {
		close(fd); /* keeps errno */
		return -1;
	}
	return close(fd);
}

/* lockedit_close - state 5: free the text and drop the lock */
void
lockedit_close(struct lockedit *le)
{
	int saved = errno;

	free(le->text);
	le->text = NULL;
	if (le->lockfd != -1)
		close(le->lockfd);
	le->lockfd = -1;
	errno = saved;
}
