/*
 * expand_common.c - what every function's expansion shares: the state
 * file written (with recipients, or empty when the function has done the
 * work itself), the text kept in a memfd, the list's config, and the
 * move aside to BAD/ or HOLD/.
 *
 * The functions (expand_list.c, expand_owner.c, request.c, bounce.c) call
 * these; none of them calls back into expand.c, which only picks the
 * function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "expand_common.h"
#include "io.h"
#include "log.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "spool_move.h"

/* expand_memfd - the delivered text (a, then b) in an anonymous file that
 * every worker can pread */
int
expand_memfd(
    struct qr_msg *m, const char *a, size_t alen, const char *b, size_t blen)
{
	int fd;

	if ((fd = memfd_create("mjq-message", MFD_CLOEXEC)) == -1)
		return -1;
	if (io_write_all(fd, a, alen) == -1 ||
	    io_write_all(fd, b, blen) == -1) {
		close(fd);
		return -1;
	}
	m->datafd = fd;
	m->datasize = (off_t)(alen + blen);
	return 0;
}

/* expand_aside - move a message to BAD/ or HOLD/ with a reason */
void
expand_aside(
    struct queuerun *q, struct qr_msg *m, const char *top, const char *why)
{
	char final[PATH_MAX], text[600];

	snprintf(text, sizeof(text), "%s\n", why);
	if (spool_move(q->s->spool_dir, m->path, top, text, final,
		sizeof(final)) == -1)
		log_warn("%s: cannot move to %s (%s)", m->name, top, why);
	else
		log_notice("%s: moved to %s: %s", m->name, top, why);
}

/* expand_listconf - the config of m's list; a broken one is logged */
int
expand_listconf(struct queuerun *q, struct qr_msg *m, struct listconf *lc)
{
	char err[512];

	if (listconf_load(q->s, m->domain, m->list, lc, err, sizeof(err)) ==
	    -1) {
		log_warnx(
		    "%s: list %s@%s: %s", m->name, m->list, m->domain, err);
		return -1;
	}
	return 0;
}

/* expand_state_open - start m's state file: its header written, the
 * recipients to follow (spool_state_write_rcpt) */
int
expand_state_open(struct queuerun *q, struct qr_msg *m,
    struct spool_state_init *init, struct spool_state_writer *w)
{
	struct stat sb;

	init->arrival = fstat(m->fd, &sb) == 0 ? (long long)sb.st_mtime
					       : (long long)m->claimed;
	init->msgid = m->msgid;
	if (spool_state_write_open(w, q->s->spool_dir, init) == -1) {
		log_warn("%s: cannot create its state file", m->name);
		return -1;
	}
	return 0;
}

/* expand_state_commit - commit m's state file and mark it active: the
 * last step of every function's expansion */
int
expand_state_commit(struct qr_msg *m, struct spool_state_writer *w)
{
	if (spool_state_write_commit(w, &m->st, m->path) == -1) {
		log_warn("%s: cannot create its state file", m->name);
		return -1;
	}
	return spool_state_set_counts(&m->st, 0, 0, 1);
}

/* expand_state - commit m's state file with these recipients (freed
 * here) and mark it active */
int
expand_state(struct queuerun *q, struct qr_msg *m,
    struct spool_state_init *init, char **rcpts, size_t n)
{
	struct spool_state_writer *w;
	size_t i;
	int r = -1;

	if ((w = malloc(sizeof(*w))) == NULL) {
		listconf_free_vec(rcpts, n);
		return -1;
	}
	if (expand_state_open(q, m, init, w) == 0) {
		for (i = 0; i < n; i++)
			if (spool_state_write_rcpt(w, rcpts[i]) == -1)
				break;
		if (i < n) {
			log_warn("%s: cannot write its state file", m->name);
			spool_state_write_abort(w);
		} else
			r = expand_state_commit(m, w);
	}
	listconf_free_vec(rcpts, n);
	free(w);
	return r;
}

/* expand_state_empty - the message is done with (a request answered, a
 * bounce counted): a state file without recipients, which the finish
 * path removes with the message */
int
expand_state_empty(
    struct queuerun *q, struct qr_msg *m, const char *kind, const char *from)
{
	struct spool_state_init init;
	struct stat sb;

	memset(&init, 0, sizeof(init));
	init.sender = "";
	init.from = from;
	init.kind = kind;
	init.msgid = m->msgid;
	init.arrival = fstat(m->fd, &sb) == 0 ? (long long)sb.st_mtime
					      : (long long)m->claimed;
	if (spool_state_create(
		&m->st, q->s->spool_dir, m->path, &init, NULL, 0) == -1 ||
	    spool_state_set_counts(&m->st, 0, 0, 1) == -1) {
		log_warn("%s: cannot create its state file", m->name);
		return -1;
	}
	return 0;
}
