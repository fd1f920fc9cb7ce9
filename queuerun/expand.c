/*
 * expand.c - first contact with a claimed message: its state file, made
 * by the function (expand_list.c, expand_owner.c, request.c) when there
 * is none yet, and the text as it will be delivered.  The step loop
 * (queuerun.c) then hands its recipients to dispatch.c.
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
#include <time.h>
#include <unistd.h>

#include "expand.h"
#include "expand_common.h"
#include "expand_list.h"
#include "expand_owner.h"
#include "expand_sign.h"
#include "header.h"
#include "log.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "request.h"

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
	} else
		r = expand_first(q, m, text, len);
	if (spool_state_attempt_done(m->path) == -1)
		log_warn("%s: cannot remove its .try file", m->name);
	return r;
}

/* expand_state_find - open m's state file, if it has one that is its
 * own: one left by an earlier message of the same name (whose runner
 * died between the finish's two unlinks) is an orphan, removed, and m is
 * new mail.  As spool_state_open: 0, or -1 with errno (ENOENT: none) */
static int
expand_state_find(struct qr_msg *m, char *why, size_t whylen)
{
	if (spool_state_open(&m->st, m->path, why, whylen) == -1)
		return -1;
	if (spool_state_belongs(&m->st, &m->msgid))
		return 0;
	log_notice("%s: %s belongs to an earlier message of this name "
		   "(kind %s, %zu of %zu recipient(s) done): removed; this "
		   "message is new",
	    m->name, m->st.path, m->st.kind,
	    m->st.nrcpt - spool_state_todo(&m->st), m->st.nrcpt);
	/* We hold the message's lock: no other runner writes this name's
	 * state file, so the one we read is the one we remove. */
	if (unlink(m->st.path) == -1 && errno != ENOENT) {
		log_warn("%s: cannot remove %s", m->name, m->st.path);
		spool_state_close(&m->st);
		errno = EIO;
		return -1;
	}
	spool_state_close(&m->st);
	errno = ENOENT;
	return -1;
}

/* expand_message - state and text of a freshly claimed message; -1
 * means release it: moved aside (-2 from the functions) or put off
 * (expand_put_off) */
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
	spool_msgid_of(&m->msgid, map, (size_t)sb.st_size);
	if (expand_state_find(m, why, sizeof(why)) == 0)
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
	if (r == 0 && m->datafd != -1)
		r = expand_sign(q, m);
	munmap(map, (size_t)sb.st_size);
	if (r == -1)
		expand_put_off(q, m);
	return r == 0 ? 0 : -1;
}

/* expand_put_off - a transient problem (memory, list config, I/O) before
 * m reached the scheduler: not again before minimal_backoff_time, so no
 * runner spins on it; the caller then releases it */
void
expand_put_off(struct queuerun *q, struct qr_msg *m)
{
	if (m->st.fd != -1)
		spool_state_set_counts(&m->st, m->st.tries, m->st.crashes, 0);
	if (spool_state_set_next(m->fd, time(NULL) + q->dc->base.min_backoff) ==
	    -1)
		log_warn("%s: cannot set its next try", m->name);
}
