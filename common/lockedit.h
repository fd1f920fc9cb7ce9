/*
 * lockedit.h - rewrite a small text file under a lock, atomically.
 *
 * The lock is flock(2) on "<file>.lock" beside the file, never on the
 * file itself (the rewrite replaces the file, and a lock on the old inode
 * would not stop a second writer).  An administrator who edits by hand
 * takes the same lock, e.g. `flock subscribers.lock vi subscribers`.
 * The new text goes to "<file>.tmp", is fsync'd, renamed over the file,
 * and the directory is fsync'd: a reader sees the old file or the new
 * one, and a crash keeps one of them whole.
 */
#ifndef MJQ_LOCKEDIT_H
#define MJQ_LOCKEDIT_H

#include <limits.h>
#include <stddef.h>

#define LOCKEDIT_WAIT_MS 30000	/* a lock held longer is an error */
#define LOCKEDIT_MAX (64 << 20) /* a larger file is not "small" */

struct lockedit {
	int lockfd;
	char path[PATH_MAX];
	char *text; /* the current content, NUL-terminated ("" if none) */
	size_t len;
};

int lockedit_open(struct lockedit *le, const char *path);
int lockedit_commit(struct lockedit *le, const char *text, size_t len);
void lockedit_close(struct lockedit *le);

#endif
