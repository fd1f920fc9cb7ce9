/*
 * queuectl_check.c - mj_queuerun -c: find and repair what a crash or a hand can
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
 *
 * Permissions: everything in the spool belongs to the spool's owner (the
 * mjq user), files at least rw and directories rwx for it (mj_queueserv
 * already closes a spool open to the world).  What is not (a file left by
 * a command run as root, a directory someone closed) is reported with
 * what this pass could not read or write there; run as root, the pass
 * gives it back to the spool's owner with mode 0640 or 0750.  A state
 * file that cannot be opened is such a finding, never a damaged one: its
 * message must not go to BAD/ for a wrong mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "queuectl.h"
#include "spool_finish.h"
#include "spool_move.h"
#include "spool_path.h"
#include "spool_state.h"
#include "spool_walk.h"

#define CHECK_ORPHAN_AGE 3600

struct queuectl_check_ctx {
	const char *spool;
	FILE *out;
	long messages, findings, repaired, remaining;
	uid_t uid; /* the spool's owner, who must own everything in it */
	gid_t gid;
	char owner[64]; /* its name */
	int root;	/* we may repair owners and modes */
};

/* queuectl_check_rel - a spool path as the operator sees it */
static const char *
queuectl_check_rel(const struct queuectl_check_ctx *c, const char *path)
{
	size_t n = strlen(c->spool);

	return strncmp(path, c->spool, n) == 0 && path[n] == '/' ? path + n + 1
								 : path;
}

/* queuectl_check_report - one finding, repaired or not */
static void
queuectl_check_report(struct queuectl_check_ctx *c, const char *path,
    const char *what, const char *action, int repaired)
{
	c->findings++;
	if (repaired)
		c->repaired++;
	else
		c->remaining++;
	fprintf(
	    c->out, "%s: %s: %s\n", queuectl_check_rel(c, path), what, action);
}

/* queuectl_check_user - a user's name, or its number */
static void
queuectl_check_user(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw;

	/* A name that does not fit would name someone else: the number. */
	if ((pw = getpwuid(uid)) == NULL ||
	    strlcpy(buf, pw->pw_name, len) >= len)
		snprintf(buf, len, "%lu", (unsigned long)uid);
}

/* queuectl_check_wrong - describe in buf how st's owner or mode is wrong for
 * the spool; 0 when it is right */
static int
queuectl_check_wrong(const struct queuectl_check_ctx *c, const struct stat *st,
    char *buf, size_t len)
{
	int dir = S_ISDIR(st->st_mode);
	mode_t need = dir ? 0700 : 0600, mode = st->st_mode & 07777;
	char user[64];

	if (st->st_uid == c->uid && (mode & need) == need)
		return 0;
	queuectl_check_user(st->st_uid, user, sizeof(user));
	snprintf(buf, len, "owner %s, mode %04o (want %s, %04o)", user,
	    (unsigned)mode, c->owner, dir ? SPOOL_DIR_MODE : SPOOL_FILE_MODE);
	return 1;
}

/* queuectl_check_access - what a runner cannot do to path: an errno, or 0 */
static int
queuectl_check_access(const char *path, const struct stat *st)
{
	const char *base = strrchr(path, '/');
	int mode = R_OK;

	if (S_ISDIR(st->st_mode))
		mode = R_OK | W_OK | X_OK;
	else if (base != NULL && base[1] == '.')
		mode = R_OK | W_OK; /* a state file is updated in place */

	return faccessat(AT_FDCWD, path, mode, AT_EACCESS) == -1 ? errno : 0;
}

/* queuectl_check_perms - path (st, or NULL when it could not be examined) as
 * the spool's owner needs it, err what it could not be used for; a
 * finding when not, repaired as root; -1 when it is left wrong */
static int
queuectl_check_perms(struct queuectl_check_ctx *c, const char *path,
    const struct stat *st, int err)
{
	char wrong[200], what[400], action[300];
	mode_t mode;
	int bad;

	bad = st != NULL && queuectl_check_wrong(c, st, wrong, sizeof(wrong));
	if (!bad && err == 0)
		return 0;
	if (err != 0)
		snprintf(what, sizeof(what), "cannot %s: %s%s%s",
		    st != NULL && S_ISDIR(st->st_mode) ? "read or write"
						       : "open",
		    strerror(err), bad ? "; " : "", bad ? wrong : "");
	else
		snprintf(what, sizeof(what), "wrong permissions: %s", wrong);
	if (bad && c->root) {
		mode = S_ISDIR(st->st_mode) ? SPOOL_DIR_MODE : SPOOL_FILE_MODE;
		if (chown(path, c->uid, c->gid) == 0 &&
		    chmod(path, mode) == 0) {
			snprintf(action, sizeof(action),
			    "owner and mode set to %s, %04o", c->owner,
			    (unsigned)mode);
			queuectl_check_report(c, path, what, action, 1);
			return 0;
		}
		snprintf(action, sizeof(action), "cannot repair: %s",
		    strerror(errno));
	} else if (bad)
		snprintf(action, sizeof(action),
		    "left (mj_queuerun -c as root gives it to %s)", c->owner);
	else
		snprintf(action, sizeof(action), "left (fix it by hand)");
	queuectl_check_report(c, path, what, action, 0);
	return -1;
}

/* queuectl_check_tops - the spool and its fixed directories */
static void
queuectl_check_tops(struct queuectl_check_ctx *c)
{
	char path[PATH_MAX];
	struct stat st;
	size_t i;
	int r;

	for (i = 0; (r = spool_top_path(path, sizeof(path), c->spool, i)) != 1;
	     i++)
		if (r == 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			queuectl_check_perms(
			    c, path, &st, queuectl_check_access(path, &st));
}

/* queuectl_check_quarantine - move a message (and its state) to BAD/ with why
 */
static void
queuectl_check_quarantine(
    struct queuectl_check_ctx *c, const char *path, const char *what)
{
	char final[PATH_MAX], why[400];

	snprintf(why, sizeof(why), "mj_queuerun -c: %s\n", what);
	if (spool_move(c->spool, path, SPOOL_BAD, why, final, sizeof(final)) ==
	    -1) {
		char action[300];
		snprintf(action, sizeof(action), "cannot move to BAD/: %s",
		    strerror(errno));
		queuectl_check_report(c, path, what, action, 0);
		return;
	}
	queuectl_check_report(c, path, what, "moved to BAD/", 1);
}

/* queuectl_check_failed - failed recipients in a message nobody holds: their
 * runner died before their bounce; deferred again, as the next runner
 * would do (spool_state_recover), so they are tried and bounce once */
static void
queuectl_check_failed(
    struct queuectl_check_ctx *c, struct spool_state *st, const char *spath)
{
	char what[128];
	size_t n = st->count[SPOOL_RCPT_FAILED];
	int r;

	if (n == 0)
		return;
	snprintf(what, sizeof(what),
	    "%zu failed recipient(s) without their bounce (a runner died)", n);
	if ((r = spool_state_recover(st)) == -1)
		queuectl_check_report(c, spath, what, strerror(errno), 0);
	else
		queuectl_check_report(
		    c, spath, what, "deferred, to be tried again", 1);
}

/* queuectl_check_dot - a dot file: its message must exist beside it */
static void
queuectl_check_dot(struct queuectl_check_ctx *c, const struct spool_entry *e)
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
	/* A state file or .try in QUEUE/: a commit or a move that links its
	 * message holds its lock (spool_orphan_remove asks).  A .why has no
	 * lock: a young one may be a move in progress, an old one is a
	 * crash's. */
	if (strcmp(e->top, SPOOL_QUEUE) == 0 && S_ISREG(e->st.st_mode) &&
	    (n <= 4 || strcmp(e->file + strlen(e->file) - 4, ".why") != 0)) {
		switch (spool_orphan_remove(e->path)) {
		case 1:
			queuectl_check_report(
			    c, e->path, "no message beside it", "removed", 1);
			break;
		case -1:
			queuectl_check_report(c, e->path,
			    "no message beside it", strerror(errno), 0);
			break;
		}
		return;
	}
	if (time(NULL) - e->st.st_mtime < CHECK_ORPHAN_AGE)
		return;
	if (strcmp(e->top, SPOOL_QUEUE) != 0 || !S_ISREG(e->st.st_mode)) {
		queuectl_check_report(c, e->path, "no message beside it",
		    "left (remove it by hand)", 0);
		return;
	}
	if (unlink(e->path) == -1)
		queuectl_check_report(
		    c, e->path, "no message beside it", strerror(errno), 0);
	else
		queuectl_check_report(
		    c, e->path, "no message beside it", "removed", 1);
}

/* queuectl_check_message - a message: if nobody holds it, its state must parse
 */
static void
queuectl_check_message(
    struct queuectl_check_ctx *c, const struct spool_entry *e)
{
	struct spool_state st;
	char why[300], what[400], spath[PATH_MAX];
	struct stat sb;
	int fd;

	c->messages++;
	if ((fd = open(e->path, O_RDONLY | O_CLOEXEC)) == -1) {
		queuectl_check_report(
		    c, e->path, "cannot open", strerror(errno), 0);
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
	if (spool_state_open(&st, e->path, why, sizeof(why)) == 0) {
		queuectl_check_failed(c, &st, spath);
		spool_state_close(&st);
	} else if (errno == EINVAL) {
		snprintf(what, sizeof(what), "damaged state file: %s", why);
		queuectl_check_quarantine(c, e->path, what);
	} else if (errno != EACCES && errno != EPERM && errno != ENOENT)
		/* (a permission problem is the state file's own finding) */
		queuectl_check_report(
		    c, spath, "cannot open the state file", strerror(errno), 0);
	close(fd);
}

/* queuectl_check_one - spool_walk_flags's callback */
static int
queuectl_check_one(void *arg, const struct spool_entry *e)
{
	struct queuectl_check_ctx *c = arg;

	if (e->error != 0 || e->dir) {
		queuectl_check_perms(c, e->path,
		    e->st.st_ino != 0 ? &e->st : NULL,
		    e->error != 0 ? e->error
				  : queuectl_check_access(e->path, &e->st));
		return 0;
	}
	if (S_ISREG(e->st.st_mode) &&
	    queuectl_check_perms(c, e->path, &e->st,
		queuectl_check_access(e->path, &e->st)) == -1) {
		if (!e->dot && !e->stray && strcmp(e->top, SPOOL_BAD) != 0)
			c->messages++;
		return 0;
	}
	if (e->dot && !e->stray)
		queuectl_check_dot(c, e);
	else if (e->stray && !S_ISREG(e->st.st_mode))
		queuectl_check_report(c, e->path, "not a regular file",
		    "left (remove it by hand)", 0);
	else if (e->stray && strcmp(e->top, SPOOL_BAD) != 0)
		queuectl_check_quarantine(c, e->path, "not a queue file name");
	else if (!e->stray && strcmp(e->top, SPOOL_BAD) != 0)
		queuectl_check_message(c, e);
	return 0;
}

/* queuectl_check - mj_queuerun -c: report and repair; the number of
 * problems left, or -1 when QUEUE/ cannot be read */
long
queuectl_check(const struct settings *s, FILE *out)
{
	struct queuectl_check_ctx c = {
	    s->spool_dir, out, 0, 0, 0, 0, 0, 0, "", 0};
	struct stat st;

	if (stat(s->spool_dir, &st) == -1)
		return -1;
	c.uid = st.st_uid;
	c.gid = st.st_gid;
	queuectl_check_user(c.uid, c.owner, sizeof(c.owner));
	c.root = geteuid() == 0;
	queuectl_check_tops(&c);
	if (spool_walk_tops(s->spool_dir,
		SPOOL_WALK_DOTS | SPOOL_WALK_ERRORS | SPOOL_WALK_DIRS,
		queuectl_check_one, &c) == -1)
		return -1;
	fprintf(out,
	    "check: %ld message%s, %ld finding%s, %ld repaired, %ld left\n",
	    c.messages, c.messages == 1 ? "" : "s", c.findings,
	    c.findings == 1 ? "" : "s", c.repaired, c.remaining);
	return c.remaining;
}
