/*
 * queuectl_admin.c - the operator's commands on one message, as postsuper(1)
 * has them: mj_queuerun -H (release from HOLD/ or BAD/ into QUEUE/),
 * -h (hold a queued message in HOLD/), -d (delete).
 *
 * Each takes the message's lock first, as a runner would (LOCK_EX |
 * LOCK_NB): a message a runner has in hand is refused (exit 75, try
 * again), so the operator never moves a message under a delivery.  The
 * move is spool_move's protocol, the delete spool_move_delete's; each is
 * one log line with the operator's uid.
 *
 * A release leaves a .why in QUEUE/ saying who released it: a list post
 * not yet expanded is then not held again by the posting policy or the
 * size limit (post.c).  A message released from BAD/ starts its
 * crash count afresh, and every released message is due at once.
 */
#include <sys/file.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "queuectl.h"
#include "spool_find.h"
#include "spool_move.h"
#include "spool_state.h"
#include "spool_walk.h"

/* queuectl_admin_rel - path without the spool in front, as -l prints it */
static const char *
queuectl_admin_rel(const struct settings *s, const char *path)
{
	size_t n = strlen(s->spool_dir);

	return strncmp(path, s->spool_dir, n) == 0 && path[n] == '/'
		   ? path + n + 1
		   : path;
}

/* queuectl_admin_fresh - a message released from BAD/: no crashes counted */
static int
queuectl_admin_fresh(const char *path)
{
	struct spool_state st;
	char why[256];
	int r;

	if (spool_state_attempt_done(path) == -1)
		return -1;
	if (spool_state_open(&st, path, why, sizeof(why)) == -1)
		return errno == ENOENT ? 0 : -1;
	r = spool_state_set_counts(&st, st.tries, 0, 0) == -1 ||
		    spool_state_sync(&st) == -1
		? -1
		: 0;
	spool_state_close(&st);
	return r;
}

/* queuectl_admin_release - HOLD/ or BAD/ -> QUEUE/, due now */
static int
queuectl_admin_release(const struct settings *s, const struct spool_found *f,
    int fd, char *final, size_t finallen)
{
	char why[64], spath[PATH_MAX];

	if (strcmp(f->top, SPOOL_QUEUE) == 0) {
		errno = EALREADY;
		return -1;
	}
	if (strcmp(f->top, SPOOL_BAD) == 0 &&
	    queuectl_admin_fresh(f->path) == -1)
		return -1;
	if (spool_state_set_next(fd, time(NULL)) == -1)
		return -1;
	snprintf(why, sizeof(why), "released by the operator (uid %u)\n",
	    (unsigned)getuid());
	/* Only a post not yet expanded reads it. */
	if (spool_state_path(spath, sizeof(spath), f->path) == -1)
		return -1;
	return spool_move(s->spool_dir, f->path, SPOOL_QUEUE,
	    access(spath, F_OK) == -1 && f->function == SPOOL_FN_LIST ? why
								      : NULL,
	    final, finallen);
}

/* queuectl_admin - one operator command on the message arg names; a
 * sysexits code */
int
queuectl_admin(const struct settings *s, enum queuectl_admin_op op,
    const char *arg, FILE *out)
{
	static const char *const done[] = {[QUEUECTL_RELEASE] = "released",
	    [QUEUECTL_HOLD] = "held",
	    [QUEUECTL_DELETE] = "deleted"};
	char final[PATH_MAX], why[64];
	struct spool_found f;
	int fd, r;

	if (spool_find(s->spool_dir, arg, &f) == -1) {
		fprintf(stderr, "mj_queuerun: %s: %s\n", arg,
		    errno == EINVAL   ? "not a message name or path"
		    : errno == EEXIST ? "several messages have this name: "
					"give the path (mj_queuerun -l)"
				      : "no such message");
		return errno == EINVAL ? EX_USAGE : EX_NOINPUT;
	}
	if ((fd = open(f.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1 ||
	    flock(fd, LOCK_EX | LOCK_NB) == -1) {
		fprintf(stderr, "mj_queuerun: %s: %s\n",
		    queuectl_admin_rel(s, f.path),
		    errno == EWOULDBLOCK ? "a runner has it in hand: try again"
					 : strerror(errno));
		if (fd != -1)
			close(fd);
		return EX_TEMPFAIL;
	}
	final[0] = '\0';
	switch (op) {
	case QUEUECTL_RELEASE:
		r = queuectl_admin_release(s, &f, fd, final, sizeof(final));
		break;
	case QUEUECTL_HOLD:
		snprintf(why, sizeof(why), "held by the operator (uid %u)\n",
		    (unsigned)getuid());
		r = strcmp(f.top, SPOOL_QUEUE) != 0
			? (errno = EALREADY, -1)
			: spool_move(s->spool_dir, f.path, SPOOL_HOLD, why,
			      final, sizeof(final));
		break;
	default:
		r = spool_move_delete(f.path);
		break;
	}
	close(fd);
	if (r == -1) {
		fprintf(stderr, "mj_queuerun: %s: %s\n",
		    queuectl_admin_rel(s, f.path),
		    errno == EALREADY
			? (op == QUEUECTL_HOLD ? "not in QUEUE/"
					       : "already in QUEUE/")
			: strerror(errno));
		return errno == EALREADY ? EX_DATAERR : EX_TEMPFAIL;
	}
	log_notice("%s: %s by the operator (uid %u)%s%s",
	    queuectl_admin_rel(s, f.path), done[op], (unsigned)getuid(),
	    final[0] ? ": now " : "",
	    final[0] ? queuectl_admin_rel(s, final) : "");
	fprintf(out, "%s: %s%s%s\n", queuectl_admin_rel(s, f.path), done[op],
	    final[0] ? ": now " : "",
	    final[0] ? queuectl_admin_rel(s, final) : "");
	return 0;
}
