/*
 * spool_finish.c - the end of a message's files in QUEUE/.
 *
 * spool_finish removes a delivered message: its state synced, then the
 * message, then the state file (spool-layout/README, "Finishing"); a
 * state file without its message is inert, a message without its state
 * would be expanded and sent again.  Each unlink is checked, so the
 * caller says "removed" only when it is true.
 *
 * A crash between those two unlinks (or in a move, or in a commit of
 * generated mail) leaves a dot file without its message: an orphan.
 * spool_orphan_remove deletes one once its message is certainly gone.
 * The one writer that links a state file before its message (generated
 * mail, and a move, which links the state into the target first) holds
 * an flock on the state file until the message is linked
 * (spool_orphan_hold), so "no message and nobody holds the lock" means
 * the message is gone for good, not on its way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool_finish.h"
#include "spool_path.h"

/* spool_finish - the delivered message at msgpath leaves the spool, in
 * the spec's order: the state synced, the message unlinked, then the
 * state file, then a .try a crash in the first processing left.  0 when
 * all are gone (ENOENT counts as gone: a walker may have taken the
 * orphan first); else -1 with errno and *left saying what is still
 * there (after a failed sync, nothing was removed: the next runner
 * finds every recipient done and finishes it) */
int
spool_finish(struct spool_state *st, const char *msgpath, const char **left)
{
	char try[PATH_MAX];

	*left = "the message and its state file (the state cannot be synced)";
	if (spool_state_sync(st) == -1)
		return -1;
	*left = "the message file";
	if (unlink(msgpath) == -1 && errno != ENOENT)
		return -1;
	*left = "its state file";
	if (unlink(st->path) == -1 && errno != ENOENT)
		return -1;
	*left = "its .try file";
	if (spool_try_path(try, sizeof(try), msgpath) == -1 ||
	    (unlink(try) == -1 && errno != ENOENT))
		return -1;
	*left = NULL;
	return 0;
}

/* spool_orphan_owned - does a message own the dot file at path: <name>
 * for .<name>, and also <name> for .<name>.try or .<name>.why (a list
 * name may end in ".try" itself, so both are asked); 1 yes, 0 no, -1
 * when it cannot be told */
static int
spool_orphan_owned(const char *path)
{
	char msg[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *base = slash != NULL ? slash + 1 : path;
	size_t n, dirlen = (size_t)(base - path);
	struct stat sb;
	int r, k;

	if (base[0] != '.' || base[1] == '\0' || base[1] == '.') {
		errno = EINVAL;
		return -1;
	}
	n = strlen(base + 1);
	for (k = 0; k < 2; k++) {
		if (k == 1) {
			if (n <= 4 ||
			    (strcmp(base + 1 + n - 4, ".try") != 0 &&
				strcmp(base + 1 + n - 4, ".why") != 0))
				break;
			n -= 4;
		}
		r = snprintf(msg, sizeof(msg), "%.*s%.*s", (int)dirlen, path,
		    (int)n, base + 1);
		if (r < 0 || (size_t)r >= sizeof(msg)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (lstat(msg, &sb) == 0)
			return 1;
		if (errno != ENOENT)
			return -1;
	}
	return 0;
}

/* spool_orphan_remove - the dot file at path (a state file or a .try)
 * had no message when the walk listed it: remove it if it still has
 * none and no process holds its lock (a commit or a move in progress
 * holds it until the message is linked).  1 removed, 0 left, -1 error */
int
spool_orphan_remove(const char *path)
{
	struct stat a, b;
	int fd, r = 0;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) ==
	    -1)
		return errno == ENOENT ? 0 : -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		r = errno == EWOULDBLOCK ? 0 : -1;
		goto done;
	}
	/* Asked again under the lock: a writer that held it is done, and
	 * its message is linked by now if it ever will be. */
	if ((r = spool_orphan_owned(path)) != 0) {
		r = r == 1 ? 0 : -1;
		goto done;
	}
	if (fstat(fd, &a) == -1 || lstat(path, &b) == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto done;
	}
	if (a.st_ino != b.st_ino || a.st_dev != b.st_dev || !S_ISREG(b.st_mode))
		goto done; /* replaced meanwhile: not the one we locked */
	if (unlink(path) == -1)
		r = errno == ENOENT ? 0 : -1;
	else
		r = 1;
done:
	(void)close(fd); /* read only: nothing to flush */
	return r;
}

/* spool_orphan_hold - an open descriptor holding the lock of the state
 * file at state_path, for a writer that links it where its message is
 * not yet: close it once the message is linked.  -1 when it cannot be
 * opened or locked (ENOENT: there is no state file) */
int
spool_orphan_hold(const char *state_path)
{
	int fd, e;

	if ((fd = open(state_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	if (flock(fd, LOCK_EX) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
