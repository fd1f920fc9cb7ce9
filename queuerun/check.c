/*
 * check.c - mj_queuerun -c: find and repair what a crash or a hand can
 * leave in the spool, like postsuper -s.
 *
 * The runner itself tolerates all of it (it never crashes on a damaged
 * file), but it does not clean up: a state file whose message is gone, a
 * name that is not a queue name, a state file it cannot parse.  This pass
 * reports each with one line and repairs what can be repaired without
 * guessing: orphan dot files are removed (the message they described is
 * finished or moved); strays and messages with a damaged state file go to
 * BAD/ with a .why, since re-expanding a post whose recipient snapshot is
 * lost would send it again to everyone.  A message a runner holds (its
 * lock is taken) is left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "queuerun.h"
#include "spool_move.h"
#include "spool_path.h"
#include "spool_state.h"
#include "spool_walk.h"

#define CHECK_ORPHAN_AGE 3600

struct check_ctx {
	const char *spool;
	FILE *out;
	long messages, findings, repaired, remaining;
};

/* check_rel - a spool path as the operator sees it */
static const char *
check_rel(const struct check_ctx *c, const char *path)
{
	size_t n = strlen(c->spool);

	return strncmp(path, c->spool, n) == 0 && path[n] == '/' ? path + n + 1
								 : path;
}

/* check_report - one finding, repaired or not */
static void
check_report(struct check_ctx *c, const char *path, const char *what,
    const char *action, int repaired)
{
	c->findings++;
	if (repaired)
		c->repaired++;
	else
		c->remaining++;
	fprintf(c->out, "%s: %s: %s\n", check_rel(c, path), what, action);
}

/* check_quarantine - move a message (and its state) to BAD/ with why */
static void
check_quarantine(struct check_ctx *c, const char *path, const char *what)
{
	char final[PATH_MAX], why[400];

	snprintf(why, sizeof(why), "mj_queuerun -c: %s\n", what);
	if (spool_move(c->spool, path, SPOOL_BAD, why, final, sizeof(final)) ==
	    -1) {
		char action[300];
		snprintf(action, sizeof(action), "cannot move to BAD/: %s",
		    strerror(errno));
		check_report(c, path, what, action, 0);
		return;
	}
	check_report(c, path, what, "moved to BAD/", 1);
}

/* check_dot - a dot file: its message must exist beside it */
static void
check_dot(struct check_ctx *c, const struct spool_entry *e)
{
	char msg[PATH_MAX], *base;
	size_t n;
	struct stat st;

	if (strlcpy(msg, e->path, sizeof(msg)) >= sizeof(msg) ||
	    (base = strrchr(msg, '/')) == NULL)
		return;
	/* .name, .name.why, .name.try -> name */
	memmove(base + 1, base + 2, strlen(base + 2) + 1);
	n = strlen(base + 1);
	if (n > 4 && (strcmp(base + 1 + n - 4, ".why") == 0 ||
			 strcmp(base + 1 + n - 4, ".try") == 0))
		base[1 + n - 4] = '\0';
	if (lstat(msg, &st) == 0 || errno != ENOENT)
		return;
	/* Generated mail commits its state file before its message: a young
	 * orphan may be a commit in progress, an old one is a crash's. */
	if (time(NULL) - e->st.st_mtime < CHECK_ORPHAN_AGE)
		return;
	if (strcmp(e->top, SPOOL_QUEUE) != 0 || !S_ISREG(e->st.st_mode)) {
		check_report(c, e->path, "no message beside it",
		    "left (remove it by hand)", 0);
		return;
	}
	if (unlink(e->path) == -1)
		check_report(
		    c, e->path, "no message beside it", strerror(errno), 0);
	else
		check_report(c, e->path, "no message beside it", "removed", 1);
}

/* check_message - a message: if nobody holds it, its state must parse */
static void
check_message(struct check_ctx *c, const struct spool_entry *e)
{
	struct spool_state st;
	char why[300], what[400], spath[PATH_MAX];
	struct stat sb;
	int fd;

	c->messages++;
	if ((fd = open(e->path, O_RDONLY | O_CLOEXEC)) == -1) {
		check_report(c, e->path, "cannot open", strerror(errno), 0);
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd); /* a runner has it in hand: not ours to judge */
		return;
	}
	if (spool_state_path(spath, sizeof(spath), e->path) == -1 ||
	    lstat(spath, &sb) == -1) {
		close(fd); /* no state file yet: a new message */
		return;
	}
	why[0] = '\0';
	if (spool_state_open(&st, e->path, why, sizeof(why)) == -1) {
		snprintf(what, sizeof(what), "damaged state file: %s",
		    why[0] ? why : strerror(errno));
		check_quarantine(c, e->path, what);
	} else {
		spool_state_close(&st);
	}
	close(fd);
}

/* check_one - spool_walk_dots's callback */
static int
check_one(void *arg, const struct spool_entry *e)
{
	struct check_ctx *c = arg;

	if (e->dot && !e->stray)
		check_dot(c, e);
	else if (e->stray && !S_ISREG(e->st.st_mode))
		check_report(c, e->path, "not a regular file",
		    "left (remove it by hand)", 0);
	else if (e->stray && strcmp(e->top, SPOOL_BAD) != 0)
		check_quarantine(c, e->path, "not a queue file name");
	else if (!e->stray && strcmp(e->top, SPOOL_BAD) != 0)
		check_message(c, e);
	return 0;
}

/* queuerun_check - mj_queuerun -c: report and repair; the number of
 * problems left, or -1 when QUEUE/ cannot be read */
long
queuerun_check(const struct settings *s, FILE *out)
{
	static const char *const tops[] = {SPOOL_QUEUE, SPOOL_HOLD, SPOOL_BAD};
	struct check_ctx c = {s->spool_dir, out, 0, 0, 0, 0};
	size_t i;

	for (i = 0; i < sizeof(tops) / sizeof(tops[0]); i++)
		if (spool_walk_dots(s->spool_dir, tops[i], check_one, &c) ==
			-1 &&
		    i == 0)
			return -1;
	fprintf(out,
	    "check: %ld message%s, %ld finding%s, %ld repaired, %ld left\n",
	    c.messages, c.messages == 1 ? "" : "s", c.findings,
	    c.findings == 1 ? "" : "s", c.repaired, c.remaining);
	return c.remaining;
}
