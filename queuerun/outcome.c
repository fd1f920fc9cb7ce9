/*
 * outcome.c - what a delivery result does to a message.
 *
 * Per batch (outcome_batch): one log line per recipient, the status word
 * written in place (delivered and deferred at once; bounced only after
 * its DSN is committed).  Per message, once
 * nothing of it is waiting or in flight (outcome_finish): expiry, the
 * DSN, then either removal or the next try as the file's mtime.  The
 * state file is synced in groups: every OUTCOME_SYNC_GROUP updates and at
 * the end of each pass, never per recipient.  The destination feedback is
 * the scheduler's (dispatch_done).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "queuerun_impl.h"

#define OUTCOME_SYNC_GROUP 1000

static const char *const outcome_words[] = {"sent", "deferred", "bounced"};

/* outcome_why - "dsn<TAB>diagnostic" kept for the DSN */
static char *
outcome_why(const struct qr_result *r)
{
	char *s;
	int n;

	if (r->code)
		n = asprintf(&s, "%s\tsmtp; %s", r->dsn, r->text);
	else
		n = asprintf(&s, "%s\tx-mjq; %s", r->dsn, r->text);
	return n == -1 ? NULL : s;
}

/* outcome_batch - a batch is back from its worker (or deferred without
 * a try); the main thread alone runs this */
void
outcome_batch(struct queuerun *q, struct qr_batch *b, double now)
{
	struct qr_msg *m = b->msg;
	const struct qr_result *r;
	size_t i, k;

	q->inflight--;
	for (i = 0; i < b->n; i++) {
		k = b->rcpt[i];
		r = &b->res[i];
		log_info("%s: to=<%s>, relay=%s, delay=%.2f, dsn=%s, "
			 "status=%s (%s)",
		    m->name, m->st.rcpt[k], b->relay,
		    now - (double)m->st.arrival, r->dsn,
		    outcome_words[r->outcome], r->text);
		switch (r->outcome) {
		case QR_SENT:
			m->pass[k] = QR_PASS_SENT;
			if (spool_state_set_rcpt(
				&m->st, k, SPOOL_RCPT_DELIVERED) == -1)
				log_warn("%s: cannot update %s", m->name,
				    m->st.path);
			break;
		case QR_DEFERRED:
			m->pass[k] = QR_PASS_DEFER;
			spool_state_set_rcpt(&m->st, k, SPOOL_RCPT_DEFERRED);
			snprintf(m->last_error, sizeof(m->last_error),
			    "%s %.180s", r->dsn, r->text);
			break;
		case QR_BOUNCED:
			m->pass[k] = QR_PASS_BOUNCE;
			free(m->why[k]);
			m->why[k] = outcome_why(r);
			break;
		}
	}
	if (m->st.unsynced >= OUTCOME_SYNC_GROUP && spool_state_sync(&m->st))
		log_warn("%s: cannot sync %s", m->name, m->st.path);
	dispatch_done(q, b, now);
	m->batches--;
	dispatch_batch_free(b);
}

/* outcome_todo - the recipient is still to be delivered after this pass:
 * deferred now, or never tried (the pass was cut short) */
static int
outcome_todo(const struct qr_msg *m, size_t i)
{
	return m->pass[i] == QR_PASS_DEFER ||
	       (m->pass[i] == QR_PASS_NONE &&
		   (m->st.status[i] == SPOOL_RCPT_PENDING ||
		       m->st.status[i] == SPOOL_RCPT_DEFERRED));
}

/* outcome_expire - past its lifetime: deferred recipients bounce */
static int
outcome_expire(struct queuerun *q, struct qr_msg *m, double now)
{
	const struct delivery_params *p = &q->dc.base;
	long long life =
	    m->st.sender[0] == '\0' ? p->bounce_lifetime : p->queue_lifetime;
	size_t i;
	int n = 0;

	if (now < (double)(m->st.arrival + life))
		return 0;
	for (i = 0; i < m->st.nrcpt; i++) {
		if (!outcome_todo(m, i))
			continue;
		m->pass[i] = QR_PASS_BOUNCE;
		free(m->why[i]);
		if (asprintf(&m->why[i],
			"4.4.7\tx-mjq; delivery time expired (last error: "
			"%s)",
			m->last_error) == -1)
			m->why[i] = NULL;
		n++;
	}
	return n;
}

/* outcome_bounce - the DSN, then the bounced words; -1 leaves the
 * bounced recipients deferred (the DSN could not be committed) */
static int
outcome_bounce(
    struct queuerun *q, struct qr_msg *m, size_t nbounce, int expired)
{
	size_t i;

	if (m->st.sender[0] == '\0' || strcmp(m->st.kind, "dsn") == 0)
		log_info("%s: sender is the null sender: no bounce for %zu "
			 "recipient(s)",
		    m->name, nbounce);
	else if (dsn_create(q, m, nbounce, expired) == -1) {
		log_warn("%s: cannot commit the bounce; trying again later",
		    m->name);
		for (i = 0; i < m->st.nrcpt; i++)
			if (m->pass[i] == QR_PASS_BOUNCE) {
				m->pass[i] = QR_PASS_DEFER;
				spool_state_set_rcpt(
				    &m->st, i, SPOOL_RCPT_DEFERRED);
			}
		return -1;
	}
	for (i = 0; i < m->st.nrcpt; i++)
		if (m->pass[i] == QR_PASS_BOUNCE &&
		    spool_state_set_rcpt(&m->st, i, SPOOL_RCPT_BOUNCED) == -1)
			log_warn("%s: cannot update %s", m->name, m->st.path);
	return 0;
}

/* outcome_backoff - seconds to the next try: the message's age, kept
 * between minimal_ and maximal_backoff_time, as Postfix does */
static long long
outcome_backoff(struct queuerun *q, const struct qr_msg *m, double now)
{
	const struct delivery_params *p = &q->dc.base;
	long long age = (long long)now - m->st.arrival;

	if (age < p->min_backoff)
		age = p->min_backoff;
	if (age > p->max_backoff)
		age = p->max_backoff;
	return age;
}

/* outcome_finish - nothing of m is waiting or in flight: end the pass */
int
outcome_finish(struct queuerun *q, struct qr_msg *m, double now)
{
	size_t i, ndefer = 0, nbounce = 0;
	int expired;
	long long next;

	expired = outcome_expire(q, m, now) > 0;
	for (i = 0; i < m->st.nrcpt; i++) {
		if (m->pass[i] == QR_PASS_BOUNCE)
			nbounce++;
		else if (outcome_todo(m, i))
			ndefer++;
	}
	if (nbounce > 0 && outcome_bounce(q, m, nbounce, expired) == -1)
		ndefer += nbounce;
	if (ndefer == 0) {
		/* The message goes first: a state file without its message
		 * is inert, a message without its state would be expanded
		 * and sent again.  The pass ends with the state synced, as
		 * every pass does: a power loss that undoes the unlinks then
		 * finds the recipients marked, not the whole list to do. */
		if (spool_state_sync(&m->st) == -1)
			log_warn("%s: cannot sync %s", m->name, m->st.path);
		if (unlink(m->path) == -1 && errno != ENOENT)
			log_warn("%s: cannot remove", m->name);
		else if (unlink(m->st.path) == -1 && errno != ENOENT)
			log_warn("%s: cannot remove %s", m->name, m->st.path);
		log_info("%s: removed", m->name);
	} else {
		next = outcome_backoff(q, m, now);
		if (spool_state_set_error(&m->st, m->last_error) == -1 ||
		    spool_state_set_counts(
			&m->st, m->st.tries + 1, m->st.crashes, 0) == -1 ||
		    spool_state_sync(&m->st) == -1)
			log_warn("%s: cannot update %s", m->name, m->st.path);
		if (spool_state_set_next(m->fd, (time_t)now + next) == -1)
			log_warn("%s: cannot set its next try", m->name);
		log_info("%s: %zu recipient(s) deferred, next try in %llds",
		    m->name, ndefer, next);
	}
	q->done++;
	walk_release(q, m);
	/* Room again, or nothing in hand: a walk says whether more is due
	 * (and lets mj_queuerun -1 see that it is idle). */
	if (q->nactive == 0)
		q->rescan = 1;
	return 0;
}
