/*
 * expand.c - first contact with a claimed message: its state file, made
 * by the function (expand_list.c, expand_owner.c) when there is none yet,
 * the text as it will be delivered, and its recipients handed to dispatch.
 *
 * A message that already has a state file is never expanded again: the
 * recipients are the snapshot taken the first time, which is what makes
 * a crash or a subscription change harmless to a post in progress.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "header.h"
#include "log.h"
#include "queuerun_impl.h"
#include "request.h"
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

/* expand_plain_text - the text as stored, minus Return-Path (the final
 * delivery agent adds one) */
int
expand_plain_text(struct qr_msg *m, const char *text, size_t len)
{
	const char *hend = header_end(text, len), *p = text, *nl;

	/* mj_enqueue puts Return-Path on top; it is the only one removed. */
	if (hend - p > 12 && strncasecmp(p, "Return-Path:", 12) == 0 &&
	    (nl = memchr(p, '\n', (size_t)(hend - p))) != NULL) {
		p = nl + 1;
		while (p < hend && (*p == ' ' || *p == '\t') &&
		       (nl = memchr(p, '\n', (size_t)(hend - p))) != NULL)
			p = nl + 1;
	}
	return expand_memfd(m, p, (size_t)(text + len - p), "", 0);
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

/* expand_resume - a message with a state file: count a crash if its last
 * runner died holding it; -1 when it went to BAD/ */
static int
expand_resume(struct queuerun *q, struct qr_msg *m)
{
	char why[300];
	int crashes = m->st.crashes, n;

	if (m->st.active)
		crashes++;
	if (crashes >= q->s->queuerun_max_crashes) {
		snprintf(why, sizeof(why),
		    "a runner died %d times while delivering it "
		    "([queuerun] max_crashes = %lld)",
		    crashes, q->s->queuerun_max_crashes);
		spool_state_set_counts(&m->st, m->st.tries, crashes, 0);
		spool_state_sync(&m->st);
		expand_aside(q, m, SPOOL_BAD, why);
		return -2;
	}
	if (spool_state_set_counts(&m->st, m->st.tries, crashes, 1) == -1) {
		log_warn("%s: cannot update %s", m->name, m->st.path);
		return -1;
	}
	/* failed words are a bounce its runner did not live to commit. */
	if ((n = spool_state_recover(&m->st)) == -1) {
		log_warn("%s: cannot update %s", m->name, m->st.path);
		return -1;
	}
	if (n > 0)
		log_info("%s: %d failed recipient(s) without their bounce: "
			 "deferred, to be tried again",
		    m->name, n);
	return 0;
}

/* expand_first - no state file yet: the function makes one */
static int
expand_first(struct queuerun *q, struct qr_msg *m, const char *text, size_t len)
{
	switch (m->function) {
	case SPOOL_FN_LIST:
		return expand_list(q, m, text, len);
	case SPOOL_FN_OWNER:
		return expand_owner(q, m, text, len);
	case SPOOL_FN_REQUEST:
	case SPOOL_FN_MAJORDOMO:
		return request_process(q, m, text, len);
	default:
		return -2;
	}
}

/* expand_attempt - first processing, counted in .<name>.try so that a
 * message that kills every runner before its state file exists still
 * ends in BAD/ after max_crashes */
static int
expand_attempt(
    struct queuerun *q, struct qr_msg *m, const char *text, size_t len)
{
	char why[200];
	int died, r;

	if ((died = spool_state_attempt(m->path)) == -1) {
		log_warn("%s: cannot count its first processing", m->name);
		died = 0;
	}
	if (died >= q->s->queuerun_max_crashes) {
		snprintf(why, sizeof(why),
		    "a runner died %d times while processing it the first time "
		    "([queuerun] max_crashes = %lld)",
		    died, q->s->queuerun_max_crashes);
		expand_aside(q, m, SPOOL_BAD, why);
		r = -2;
	} else {
		log_last_clear();
		r = expand_first(q, m, text, len);
	}
	/* Tried again later: the reason stays beside it for mj_queuerun -l */
	if (r == -1 && spool_state_attempt_failed(m->path,
			   log_last()[0] ? log_last()
					 : "first processing failed") == -1)
		log_warn("%s: cannot write its .try file", m->name);
	else if (r != -1 && spool_state_attempt_done(m->path) == -1)
		log_warn("%s: cannot remove its .try file", m->name);
	return r;
}

/* expand_message - state, text and recipients of a freshly claimed
 * message; -1 means release it: moved aside (-2 from the functions) or
 * tried again after minimal_backoff_time */
int
expand_message(struct queuerun *q, struct qr_msg *m)
{
	struct stat sb;
	char why[256];
	void *map;
	int r;

	if (fstat(m->fd, &sb) == -1)
		return -1;
	if (sb.st_size == 0) {
		expand_aside(q, m, SPOOL_BAD, "empty message file");
		return -1; /* moved: its mtime no longer matters */
	}
	if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, m->fd,
		 0)) == MAP_FAILED) {
		log_warn("%s: cannot map", m->name);
		return -1;
	}
	if (spool_state_open(&m->st, m->path, why, sizeof(why)) == 0)
		r = expand_resume(q, m);
	else if (errno == ENOENT)
		r = expand_attempt(q, m, map, (size_t)sb.st_size);
	else if (errno == EINVAL) {
		char text[400];
		snprintf(text, sizeof(text), "damaged state file: %s", why);
		expand_aside(q, m, SPOOL_BAD, text);
		r = -2;
	} else {
		log_warn(
		    "%s: cannot open its state file %s", m->name, m->st.path);
		r = -1;
	}
	if (r == 0 && m->datafd == -1) {
		if (strcmp(m->st.kind, "post") == 0)
			r = expand_list(q, m, map, (size_t)sb.st_size);
		else if ((r = expand_plain_text(m, map, (size_t)sb.st_size)) ==
			 -1)
			log_warn("%s: cannot prepare the text", m->name);
	}
	munmap(map, (size_t)sb.st_size);
	if (r == 0 && dispatch_add(q, m, m->claimed) == -1) {
		log_warn("%s: cannot route its recipients", m->name);
		r = -1;
	}
	if (r == -1) {
		/* A transient problem (memory, list config, I/O): not
		 * before minimal_backoff_time, so no runner spins on it. */
		if (m->st.fd != -1)
			spool_state_set_counts(
			    &m->st, m->st.tries, m->st.crashes, 0);
		if (spool_state_set_next(
			m->fd, time(NULL) + q->dc.base.min_backoff) == -1)
			log_warn("%s: cannot set its next try", m->name);
	}
	return r == 0 ? 0 : -1;
}
