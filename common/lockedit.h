/*
 * lockedit.h - rewrite a small text file under a lock, atomically.
 *
 * The lock is flock(2) on "<file>.lock" beside the file, never on the
 * file itself (the rewrite replaces the file, and a lock on the old inode
 * would not stop a second writer).  An administrator who edits by hand
 * takes the same lock, e.g. `flock subscribers.lock vi subscribers`.
 * The new text goes to "<file>.tmp", is fsync'd, renamed over the file,
 * and the directory is fsync'd: a reader sees the old file or the new
 * one, and a crash keeps one of them whole.  lockedit_lines.c makes
 * the new text line by line through a caller's callback.
 */
#ifndef MJQ_LOCKEDIT_H
#define MJQ_LOCKEDIT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#define LOCKEDIT_WAIT_MS 30000	/* a lock held longer is an error */
#define LOCKEDIT_MAX (64 << 20) /* a larger file is not "small" */

struct lockedit {
	int lockfd;
	char path[PATH_MAX];
	char *text; /* the current content, NUL-terminated ("" if none) */
	size_t len;
};

int lockedit_open(struct lockedit *le, const char *path);
/* lockedit_flock - flock(fd, op), op LOCK_EX or LOCK_SH, waiting at most
 * LOCKEDIT_WAIT_MS; 0 or -1 with errno (ETIMEDOUT when still held) */
int lockedit_flock(int fd, int op);
/* lockedit_hold - only the lock of path (never read nor written), held
 * until lockedit_close: one writer at a time through a read-decide-write
 * of other files; -1 with errno */
int lockedit_hold(struct lockedit *le, const char *path);
int lockedit_commit(struct lockedit *le, const char *text, size_t len);
/* lockedit_overwrite - the new text in place of the old, no fsync: a
 * crash may tear the file (lockedit.c); for state whose loss costs
 * nothing (counts), never for data */
int lockedit_overwrite(struct lockedit *le, const char *text, size_t len);
/* A file too large to hold in core: lockedit_hold, then the new text
 * streamed to <file>.tmp and committed (or given up) by the caller. */
FILE *lockedit_tmp_open(struct lockedit *le);
int lockedit_tmp_commit(struct lockedit *le, FILE *fp);
void lockedit_tmp_abort(struct lockedit *le, FILE *fp);
void lockedit_close(struct lockedit *le);

/* What a line callback of lockedit_lines answers (or -1: give up). */
#define LOCKEDIT_KEEP 0	   /* the line again, with its newline */
#define LOCKEDIT_DROP 1	   /* nothing (fn may have written lines itself) */
#define LOCKEDIT_REPLACE 2 /* what fn wrote to out, then the newline */
/* What it answers to the end call (line NULL). */
#define LOCKEDIT_COMMIT 0 /* the new text replaces the file */
#define LOCKEDIT_LEAVE 1  /* the file stays as it is */

/* lockedit_lines's flag: the text is records, one a line (strtok-like):
 * it ends at a NUL byte, blank lines are left out, and every line
 * written again ends in a newline, the last one too */
#define LOCKEDIT_RECORDS 1

/* fn(arg, out, line, len): a line of the old text, its newline cut (a
 * NUL in its place, so fn may change it), len bytes; once more with
 * line NULL after the last, for what goes at the end */
typedef int lockedit_line_fn(void *arg, FILE *out, char *line, size_t len);

int lockedit_lines(struct lockedit *le, int flags, lockedit_line_fn *fn,
    void *arg, char **out, size_t *outlen);
int lockedit_rewrite(
    const char *path, int flags, lockedit_line_fn *fn, void *arg);

#endif
