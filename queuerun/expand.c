/*
 * expand.c - the runner's expand stage: first contact with a claimed
 * message.  Its state file, made by the list functions' first door
 * (listfn_first) when there is none yet, and the text as it will be
 * delivered, from their second door (listfn_text); which function or
 * kind of text it is stays behind the doors.  The step loop
 * (queuerun.c) then hands its recipients to dispatch.c.
 *
 * The first processing runs on a list thread (listwork.c); the text is
 * made here on the main thread when it comes back.
 *
 * A message that already has a state file is never expanded again: the
 * recipients are the snapshot taken the first time, which is what makes
 * a crash or a subscription change harmless to a post in progress.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crash.h"
#include "expand.h"
#include "listfn.h"
#include "lists.h"
#include "listwork.h"
#include "log.h"
#include "qr_msg.h"
#include "qr_runner.h"

/* expand_resume - a message with a state file: weigh the death of its
 * last runner if it died holding it (crash.c); -2 when it went to BAD/ */
static int
expand_resume(struct queuerun *q, struct qr_msg *m)
{
	char why[500], how[200];
	int crashes = m->lm.st.crashes, n;
	size_t settled = spool_state_settled(&m->lm.st);

	if (m->lm.st.active &&
	    crash_weigh(q, m->lm.name, (pid_t)m->lm.st.active, crashes,
		settled != m->lm.st.crash_settled, how, sizeof(how))) {
		crashes++;
		if (spool_state_set_crash_settled(&m->lm.st, settled) == -1)
			log_warn(
			    "%s: cannot update %s", m->lm.name, m->lm.st.path);
	} else
		snprintf(how, sizeof(how), "%s", "died before");
	/* Also when a runner died moving it to BAD/ (active is 0 then). */
	if (crashes >= q->s->queuerun_max_crashes) {
		snprintf(why, sizeof(why),
		    "a runner died %d times while delivering it (the last one "
		    "%s; [queuerun] max_crashes = %lld)",
		    crashes, how, q->s->queuerun_max_crashes);
		/* The state goes to BAD/ with the count that sent it there,
		 * durable first; a state file that cannot be updated leaves
		 * the message in QUEUE/, put off, for the next try to move. */
		if (spool_state_set_counts(
			&m->lm.st, m->lm.st.tries, crashes, 0) == -1 ||
		    spool_state_sync(&m->lm.st) == -1) {
			log_warn(
			    "%s: cannot update %s", m->lm.name, m->lm.st.path);
			return -1;
		}
		return listfn_aside(&q->fn, &m->lm, SPOOL_BAD, why);
	}
	if (spool_state_set_counts(
		&m->lm.st, m->lm.st.tries, crashes, (int)getpid()) == -1) {
		log_warn("%s: cannot update %s", m->lm.name, m->lm.st.path);
		return -1;
	}
	/* failed words are a bounce its runner did not live to commit. */
	if ((n = spool_state_recover(&m->lm.st)) == -1) {
		log_warn("%s: cannot update %s", m->lm.name, m->lm.st.path);
		return -1;
	}
	if (n > 0)
		log_info("%s: %d failed recipient(s) without their bounce: "
			 "deferred, to be tried again",
		    m->lm.name, n);
	return 0;
}

/* expand_attempt - first processing, counted in .<name>.try so that a
 * message that kills every runner before its state file exists still
 * ends in BAD/ after max_crashes; an attempt that never finished is
 * weighed as expand_resume weighs a death (no progress is possible) */
static int
expand_attempt(
    struct queuerun *q, struct qr_msg *m, const char *text, size_t len)
{
	char why[500], how[200] = "died, how unknown";
	int died, counted, r;
	pid_t last, self = getpid();

	if ((died = spool_state_attempt(m->lm.path, self, &counted, &last)) ==
	    -1) {
		log_warn("%s: cannot count its first processing", m->lm.name);
		died = counted = 0;
	}
	if (died == 1 &&
	    crash_weigh(q, m->lm.name, last, counted, 0, how, sizeof(how)) &&
	    spool_state_attempt_count(m->lm.path, ++counted, self) == -1)
		log_warn("%s: cannot count its first processing", m->lm.name);
	if (counted >= q->s->queuerun_max_crashes) {
		snprintf(why, sizeof(why),
		    "a runner died %d times while processing it the first "
		    "time (the last one %s; [queuerun] max_crashes = %lld)",
		    counted, how, q->s->queuerun_max_crashes);
		r = listfn_aside(&q->fn, &m->lm, SPOOL_BAD, why);
	} else {
		log_last_clear();
		r = listfn_first(&q->fn, &m->lm, text, len);
	}
	/* Tried again later: the reason stays beside it for mj_queuerun -l */
	if (r == -1 &&
	    spool_state_attempt_failed(m->lm.path,
		log_last()[0] ? log_last() : "first processing failed") == -1)
		log_warn("%s: cannot write its .try file", m->lm.name);
	else if (r != -1 && spool_state_attempt_done(m->lm.path) == -1)
		log_warn("%s: cannot remove its .try file", m->lm.name);
	return r;
}

/* expand_state_find - open m's state file, if it has one that is its
 * own: one left by an earlier message of the same name (whose runner
 * died between the finish's two unlinks) is an orphan, removed, and m is
 * new mail.  As spool_state_open: 0, or -1 with errno (ENOENT: none) */
static int
expand_state_find(struct qr_msg *m, char *why, size_t whylen)
{
	if (spool_state_open(&m->lm.st, m->lm.path, why, whylen) == -1)
		return -1;
	if (spool_state_belongs(&m->lm.st, &m->lm.msgid)) {
		if (m->lm.st.torn > 0)
			log_warnx("%s: %zu status word(s) in %s torn (a power "
				  "loss): read as deferred, those recipients "
				  "are tried again",
			    m->lm.name, m->lm.st.torn, m->lm.st.path);
		return 0;
	}
	log_notice("%s: %s belongs to an earlier message of this name "
		   "(kind %s, %zu of %zu recipient(s) done): removed; this "
		   "message is new",
	    m->lm.name, m->lm.st.path, m->lm.st.kind,
	    m->lm.st.nrcpt - spool_state_todo(&m->lm.st), m->lm.st.nrcpt);
	/* We hold the message's lock: no other runner writes this name's
	 * state file, so the one we read is the one we remove. */
	if (unlink(m->lm.st.path) == -1 && errno != ENOENT) {
		log_warn("%s: cannot remove %s", m->lm.name, m->lm.st.path);
		spool_state_close(&m->lm.st);
		errno = EIO;
		return -1;
	}
	spool_state_close(&m->lm.st);
	errno = ENOENT;
	return -1;
}

/* expand_lane - the list thread of a first processing: one that may
 * wait on a list lock goes apart from those that only read a list */
static enum listwork_lane
expand_lane(const struct qr_msg *m)
{
	return listfn_first_edits(&m->lm) ? LISTWORK_EDITS : LISTWORK_POSTS;
}

/* expand_attempt_thread - expand_attempt as the list thread runs it */
static int
expand_attempt_thread(struct queuerun *q, struct qr_msg *m)
{
	return expand_attempt(q, m, m->map, m->maplen);
}

/* expand_end - the rest of an expansion once the function has run (r as
 * it returned): the text as delivered; on failure the next try.  Main
 * thread only.  -1 means release m. */
static int
expand_end(struct queuerun *q, struct qr_msg *m, int r)
{
	/* A function that put mail into QUEUE/ (an approved post) asks for
	 * a walk through the message, whichever thread it ran on; the wish
	 * is granted here, on the thread that owns q->rescan. */
	if (m->lm.rescan) {
		m->lm.rescan = 0;
		q->rescan = 1;
	}
	if (r == 0)
		r = listfn_text(&q->fn, &m->lm, m->map, m->maplen);
	if (r == 0)
		test_fault(m->map, m->maplen);
	munmap(m->map, m->maplen);
	m->map = NULL;
	if (r == -1)
		expand_put_off(q, m);
	return r == 0 ? 0 : -1;
}

/* expand_message_now - state and text of a freshly claimed message: 0
 * done, -1 release it (moved aside, -2 from the functions, or put off
 * for minimal_backoff_time), 1 on a list thread: a first processing
 * (which may wait on a list lock or read a large list, listwork.c) ends
 * in expand_collect, and the message stays claimed meanwhile */
static int
expand_message_now(struct queuerun *q, struct qr_msg *m)
{
	struct stat sb;
	char why[256];
	int r;

	if (fstat(m->lm.fd, &sb) == -1)
		return -1;
	if (sb.st_size == 0) {
		if (listfn_aside(
			&q->fn, &m->lm, SPOOL_BAD, "empty message file") == -1)
			expand_put_off(q, m); /* not moved: not again at once */
		return -1;
	}
	if ((m->map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE,
		 m->lm.fd, 0)) == MAP_FAILED) {
		m->map = NULL;
		log_warn("%s: cannot map", m->lm.name);
		return -1;
	}
	m->maplen = (size_t)sb.st_size;
	spool_msgid_of(&m->lm.msgid, m->map, m->maplen);
	if (expand_state_find(m, why, sizeof(why)) == 0)
		r = expand_resume(q, m);
	else if (errno == ENOENT) {
		if (listwork_submit(
			q, m, expand_lane(m), expand_attempt_thread) == 0) {
			m->listwork = 1;
			return 1;
		}
		r = expand_attempt(q, m, m->map, m->maplen);
	} else if (errno == EINVAL) {
		char text[400];
		snprintf(text, sizeof(text), "damaged state file: %s", why);
		r = listfn_aside(&q->fn, &m->lm, SPOOL_BAD, text);
	} else {
		log_warn("%s: cannot open its state file %s", m->lm.name,
		    m->lm.st.path);
		r = -1;
	}
	return expand_end(q, m, r);
}

/* expand_message - as expand_message_now, the message named in this
 * runner's line of state/runners meanwhile (crash.c) */
int
expand_message(struct queuerun *q, struct qr_msg *m)
{
	int r;

	crash_mark(q, m->lm.name);
	r = expand_message_now(q, m);
	crash_mark(q, "");
	return r;
}

/* expand_collect - a message whose first processing the list thread has
 * finished, its expansion ended (*r as expand_message's), or NULL */
struct qr_msg *
expand_collect(struct queuerun *q, int *r)
{
	struct qr_msg *m;

	if ((m = listwork_done(q, r)) == NULL)
		return NULL;
	m->listwork = 0;
	crash_mark(q, m->lm.name);
	*r = expand_end(q, m, *r);
	crash_mark(q, "");
	return m;
}

/* expand_put_off - a transient problem (memory, list config, I/O) before
 * m reached the scheduler: not again before minimal_backoff_time, so no
 * runner spins on it; the caller then releases it */
void
expand_put_off(struct queuerun *q, struct qr_msg *m)
{
	if (m->lm.st.fd != -1 && spool_state_set_counts(&m->lm.st,
				     m->lm.st.tries, m->lm.st.crashes, 0) == -1)
		log_warn("%s: cannot update %s", m->lm.name, m->lm.st.path);
	if (spool_state_set_next(
		m->lm.fd, time(NULL) + q->dc->base.min_backoff) == -1)
		log_warn("%s: cannot set its next try", m->lm.name);
}
