/*
 * spool_move.c - move a message between QUEUE/, HOLD/ and BAD/, and
 * commit generated mail (a message that arrives with its state file).
 *
 * Moves use link() and unlink(), never rename(), so that until the new
 * directory is durable the old names still hold the message: a crash
 * leaves it in both places at worst, and a second move completes it.
 * The message's lock is on its inode, so a runner holding it may move it.
 */
#include <sys/file.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "spool_commit.h"
#include "spool_finish.h"
#include "spool_move.h"
#include "spool_path.h"
#include "spool_state.h"
#include "spool_walk.h"
#include "spool_why.h"

/* spool_move_lock - the message at msgpath, open and locked (LOCK_EX,
 * not waiting) for a move or removal: a descriptor, or -1 with errno
 * EWOULDBLOCK when another process holds it, ENOENT when it is gone.  A
 * message moved or removed between the open and the lock is gone: the
 * lock is then on a file that msgpath no longer names. */
int
spool_move_lock(const char *msgpath)
{
	struct stat a, b;
	int fd, e;

	if ((fd = open(msgpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		e = errno;
		(void)close(fd); /* read only */
		errno = e;
		return -1;
	}
	if (fstat(fd, &a) == -1 || lstat(msgpath, &b) == -1 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		(void)close(fd);
		errno = ENOENT;
		return -1;
	}
	return fd;
}

/* spool_move_link - link old to new; an existing new name that is
 * already the same file is fine (a move interrupted before); any other
 * file there is replaced when replace is set (a stale state file or
 * .why), else the link fails with EEXIST (a message of the same name is
 * another message, never overwritten) */
static int
spool_move_link(const char *from, const char *to, int replace)
{
	struct stat a, b;

	if (link(from, to) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	if (stat(from, &a) == 0 && stat(to, &b) == 0 && a.st_ino == b.st_ino &&
	    a.st_dev == b.st_dev)
		return 0;
	/* A stale file from an older message of the same name: the state
	 * or .why of the message being moved wins. */
	if (!replace) {
		errno = EEXIST;
		return -1;
	}
	if (unlink(to) == -1 || link(from, to) == -1)
		return -1;
	return 0;
}

/* spool_move_free - 0 when nothing is at the target path, or the message
 * at msgpath itself is (a move interrupted before); -1 with errno EEXIST
 * when another message has that name there */
static int
spool_move_free(const char *msgpath, const char *path)
{
	struct stat a, b;

	if (lstat(path, &b) == -1)
		return errno == ENOENT ? 0 : -1;
	if (stat(msgpath, &a) == -1)
		return -1;
	if (a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		return 0;
	errno = EEXIST;
	return -1;
}

/* spool_move - move the message at msgpath (under $spool/QUEUE, HOLD or
 * BAD) to the same place under to_top; why, if not NULL, becomes the
 * .<name>.why file beside it.  States:
 *   0. the target name is free, or this message's already: another
 *      message of that name there refuses the move (EEXIST) before
 *      anything changed, so its .why and state are never touched
 *   1. the target directory exists (made durable in its parent)
 *   2. .<name>.why committed in the target (tmp, fsync, link)
 *   3. the state file linked into the target, its lock held (a state
 *      file without its message is otherwise an orphan to a walker)
 *   4. the message linked into the target (never over another message
 *      of that name); target directory fsync'd: from here the message
 *      is in its new place
 *   5. the old message name unlinked, then the old state name and the
 *      old .why; the old directory fsync'd; the lock let go */
int
spool_move(const char *spool, const char *msgpath, const char *to_top,
    const char *why, char *final, size_t finallen)
{
	char dir[PATH_MAX], path[PATH_MAX], from_state[PATH_MAX];
	char to_state[PATH_MAX], olddir[PATH_MAX];
	const char *rel, *slash;
	struct spool_tmp t;
	size_t n = strlen(spool);
	int r, hold;

	/* rel: "QUEUE/xx/domain/yy/function/name" -> skip the top */
	if (strncmp(msgpath, spool, n) != 0 || msgpath[n] != '/' ||
	    (rel = strchr(msgpath + n + 1, '/')) == NULL ||
	    (slash = strrchr(msgpath, '/')) == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = snprintf(path, sizeof(path), "%s/%s%s", spool, to_top, rel);
	if (r < 0 || (size_t)r >= sizeof(path) ||
	    strlcpy(dir, path, sizeof(dir)) >= sizeof(dir) ||
	    strlcpy(olddir, msgpath, sizeof(olddir)) >= sizeof(olddir) ||
	    strlcpy(final, path, finallen) >= finallen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*strrchr(dir, '/') = '\0';
	olddir[slash - msgpath] = '\0';
	if (spool_move_free(msgpath, path) == -1 ||
	    spool_mkdirs(spool, dir) == -1)
		return -1;
	if (why != NULL) {
		char whypath[PATH_MAX];
		r = snprintf(
		    whypath, sizeof(whypath), "%s/.%s.why", dir, slash + 1);
		if (r < 0 || (size_t)r >= sizeof(whypath)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (spool_tmp_put(&t, spool, why, strlen(why)) == -1)
			return -1;
		if (unlink(whypath) == -1 && errno != ENOENT) {
			spool_tmp_discard(&t);
			return -1;
		}
		if (spool_tmp_link_as(&t, whypath) == -1) {
			spool_tmp_discard(&t);
			return -1;
		}
	}
	if (spool_state_path(from_state, sizeof(from_state), msgpath) == -1 ||
	    spool_state_path(to_state, sizeof(to_state), path) == -1)
		return -1;
	if ((hold = spool_orphan_hold(from_state)) == -1 && errno != ENOENT)
		return -1;
	r = -1;
	if (hold != -1 && spool_move_link(from_state, to_state, 1) == -1)
		goto done;
	if (spool_move_link(msgpath, path, 0) == -1 ||
	    spool_fsync_dir(dir) == -1)
		goto done;
	if (unlink(msgpath) == -1 && errno != ENOENT)
		goto done;
	if (hold != -1 && unlink(from_state) == -1 && errno != ENOENT)
		goto done;
	if (spool_why_remove(msgpath) == -1)
		goto done;
	r = spool_fsync_dir(olddir);
done:
	if (hold != -1)
		(void)close(hold); /* read only: the lock goes with it */
	return r;
}

/* spool_move_delete - remove the message at msgpath from the spool (an
 * operator's delete, a discarded or expired held post): the message
 * first, then its state file, .why and .try (a state file without its
 * message is inert); the directory fsync'd */
int
spool_move_delete(const char *msgpath)
{
	char spath[PATH_MAX], dir[PATH_MAX];
	char *slash;

	if (strlcpy(dir, msgpath, sizeof(dir)) >= sizeof(dir) ||
	    (slash = strrchr(dir, '/')) == NULL) {
		errno = EINVAL;
		return -1;
	}
	*slash = '\0';
	if (unlink(msgpath) == -1)
		return -1;
	if (spool_state_path(spath, sizeof(spath), msgpath) == -1 ||
	    (unlink(spath) == -1 && errno != ENOENT) ||
	    spool_why_remove(msgpath) == -1 ||
	    spool_state_attempt_done(msgpath) == -1)
		return -1;
	return spool_fsync_dir(dir);
}

/* spool_move_generate - commit a message that comes with its state file
 * (mail the runner generates: bounces, forwards).  States:
 *   1. both texts written to tmp files and fsync'd
 *   2. the state file linked as .<name> (EEXIST, or the name in use in
 *      any top directory, spool_name_free: next letters), its lock held;
 *      a state file without its message is never expanded or delivered,
 *      and while the lock is held no walker takes it for an orphan
 *   3. the message linked as <name>; directory fsync'd: committed
 *   4. the tmp names unlinked; the lock let go
 * The state file comes first because a message without one is taken for
 * fresh mail and expanded again. */
int
spool_move_generate(const char *spool, const char *dir, struct spool_name *name,
    const char *state, size_t statelen, const char *msg, size_t msglen,
    char *final, size_t finallen)
{
	struct spool_tmp ts, tm;
	char base[SPOOL_NAME_MAX + 1], spath[PATH_MAX];
	int r, ok = -1, hold;

	if (spool_tmp_put(&ts, spool, state, statelen) == -1)
		return -1;
	if ((hold = spool_orphan_hold(ts.path)) == -1) {
		spool_tmp_discard(&ts);
		return -1;
	}
	if (spool_tmp_put(&tm, spool, msg, msglen) == -1) {
		(void)close(hold);
		spool_tmp_discard(&ts);
		return -1;
	}
	if (spool_mkdirs(spool, dir) == -1)
		goto done;
	for (;;) {
		if (spool_name_format(name, base, sizeof(base)) == -1)
			goto done;
		r = snprintf(final, finallen, "%s/%s", dir, base);
		if (r < 0 || (size_t)r >= finallen ||
		    spool_state_path(spath, sizeof(spath), final) == -1) {
			errno = ENAMETOOLONG;
			goto done;
		}
		if ((r = spool_name_free(spool, final)) == -1)
			goto done;
		if (r == 1 && link(ts.path, spath) == 0) {
			if (link(tm.path, final) == 0)
				break;
			unlink(spath);
		}
		if (spool_name_next(name) == -1)
			goto done;
	}
	if (spool_fsync_dir(dir) == -1)
		goto done;
	ok = 0;
done:
	spool_tmp_discard(&ts);
	spool_tmp_discard(&tm);
	(void)close(hold); /* read only: the lock goes with it */
	return ok;
}
