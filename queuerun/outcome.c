/*
 * outcome.c - what a delivery result does to a message.
 *
 * Per batch (outcome_batch): one log line per recipient, the status word
 * written in place: delivered and deferred at once, failed with its
 * reason kept aside (fail_log.c), bounced only after the DSN is
 * committed.  Per message, once nothing of it is waiting or in flight
 * (outcome_finish): expiry, the DSN, then either removal or the next try as the
 * file's mtime.  A batch's words are made durable soon after its
 * outcome, but not one fdatasync per batch: outcome_batch puts the
 * message on the runner's sync list, and outcome_sync, which the step
 * loop calls once it has written every outcome that came back together,
 * hands the listed state files to the sync thread (state_sync.c) when it
 * is idle: one fdatasync each for all the batches collected while the
 * last job ran.  Meanwhile the next batches start, but only while the
 * batches in flight and those whose words are not yet durable are fewer
 * than twice delivery_threads (outcome_room), and no message is finished
 * while its words wait (outcome_syncing); so a power loss sends again at
 * most that many batches (spool-layout/README, "State file").  The end
 * of a pass is synced again, inline.  The step loop (queuerun.c) calls
 * these, then gives the batch back to the scheduler (dispatch_done) and
 * releases the finished message (walk_release).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "listfn.h"
#include "fail_log.h"
#include "log.h"
#include "outcome.h"
#include "qr_batch.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "rcpt_pool.h"
#include "spool_finish.h"

static const char *const outcome_words[] = {"sent", "deferred", "bounced"};

/* outcome_batch - a batch is back from its worker (or deferred without
 * a try): its results into the state file; the main thread alone runs
 * this, and the step loop then gives the batch to dispatch_done */
void
outcome_batch(struct queuerun *q, struct qr_batch *b, double now)
{
	struct qr_msg *m = b->msg;
	const struct deliver_result *r;
	const struct qr_rcpt *rec;
	char diag[400];
	size_t i;

	for (i = 0; i < b->d.n; i++) {
		rec = rcpt_pool_get(&q->rcpts, b->rcpt[i]);
		r = &b->d.res[i];
		/* source= only when a pool gave the address, so the line
		 * is as it was without one */
		log_info("%s: to=<%s>, relay=%s, delay=%.2f, dsn=%s, "
			 "status=%s (%s)%s%s%s%s",
		    m->lm.name, rec->addr, b->d.relay,
		    now - (double)m->lm.st.arrival, r->dsn,
		    outcome_words[r->outcome], r->text,
		    b->d.tls ? ", tls=" : "",
		    b->d.tls ? spool_dest_tls_name(b->d.tls) : "",
		    b->d.source != NULL ? ", source=" : "",
		    b->d.sent_from != NULL ? b->d.sent_from->addr
		    : b->d.source != NULL  ? b->d.source->addr
					   : "");
		switch (r->outcome) {
		case DELIVER_SENT:
			if (spool_state_set_rcpt(&m->lm.st, rec->off,
				rec->status, SPOOL_RCPT_DELIVERED) == -1)
				log_warn("%s: cannot update %s", m->lm.name,
				    m->lm.st.path);
			break;
		case DELIVER_DEFERRED:
			if (spool_state_set_rcpt(&m->lm.st, rec->off,
				rec->status, SPOOL_RCPT_DEFERRED) == -1)
				log_warn("%s: cannot update %s", m->lm.name,
				    m->lm.st.path);
			snprintf(m->last_error, sizeof(m->last_error),
			    "%s %.180s", r->dsn, r->text);
			break;
		case DELIVER_BOUNCED:
			snprintf(diag, sizeof(diag), "%s; %s",
			    r->code ? "smtp" : "x-mjq", r->text);
			fail_log_add(q, m, rec->off, rec->status, rec->addr,
			    r->dsn, diag);
			break;
		}
		rcpt_pool_drop(&q->rcpts, b->rcpt[i]);
	}
	q->out.unsynced++;
	if (!m->sync_due) {
		m->sync_due = 1;
		m->sync_next = q->out.sync_list;
		q->out.sync_list = m;
	}
}

/* outcome_sync_start - the sync thread (state_sync.c) */
void
outcome_sync_start(struct queuerun *q)
{
	if (state_sync_start(&q->out.sync, q->pool) == -1)
		log_warnx("cannot start the state files' sync thread; they are "
			  "synced inline");
}

/* outcome_synced - the sync thread's job is done: its messages' words
 * are durable (or the error is logged, and they stay to be synced) */
static void
outcome_synced(struct queuerun *q)
{
	struct state_sync *s = &q->out.sync;
	struct qr_msg *m;
	size_t i;

	for (i = 0; i < s->n; i++) {
		m = s->tags[i];
		m->sync_busy = 0;
		if (s->errs[i] == 0)
			spool_state_synced(&m->lm.st, m->sync_handed);
		else
			log_warnx("%s: cannot sync %s: %s", m->lm.name,
			    m->lm.st.path, strerror(s->errs[i]));
	}
	q->out.unsynced -= q->out.job_batches;
	q->out.job_batches = 0;
	state_sync_clear(s);
}

/* outcome_sync_inline - the listed files synced here, as without the
 * thread (and when it cannot take them) */
static void
outcome_sync_inline(struct queuerun *q)
{
	struct qr_msg *m;

	while ((m = q->out.sync_list) != NULL) {
		q->out.sync_list = m->sync_next;
		m->sync_next = NULL;
		m->sync_due = 0;
		if (spool_state_sync(&m->lm.st) == -1)
			log_warn(
			    "%s: cannot sync %s", m->lm.name, m->lm.st.path);
	}
	q->out.unsynced = q->out.job_batches;
}

/* outcome_sync - the outcomes written since the last call made durable:
 * the thread's finished job taken back, then the listed state files
 * handed to it, one fdatasync each for all their batches (inline when
 * there is no thread); the step loop calls it once it has written the
 * outcomes that came back together */
void
outcome_sync(struct queuerun *q)
{
	struct state_sync *s = &q->out.sync;
	struct qr_msg *m;

	if (state_sync_done(s) == 1)
		outcome_synced(q);
	if (q->out.sync_list == NULL || s->handed)
		return;
	if (!s->started) {
		outcome_sync_inline(q);
		return;
	}
	for (m = q->out.sync_list; m != NULL; m = m->sync_next)
		if (state_sync_add(s, m->lm.st.fd, m) == -1) {
			state_sync_clear(s);
			outcome_sync_inline(q);
			return;
		}
	while ((m = q->out.sync_list) != NULL) {
		q->out.sync_list = m->sync_next;
		m->sync_next = NULL;
		m->sync_due = 0;
		m->sync_busy = 1;
		m->sync_handed = spool_state_unsynced(&m->lm.st);
	}
	q->out.job_batches = q->out.unsynced;
	state_sync_hand(s);
}

/* outcome_sync_wait - the job in hand waited for, the thread ended,
 * the rest synced inline */
void
outcome_sync_wait(struct queuerun *q)
{
	state_sync_stop(&q->out.sync);
	if (state_sync_done(&q->out.sync) == 1)
		outcome_synced(q);
	state_sync_clear(&q->out.sync);
	state_sync_free(&q->out.sync);
	outcome_sync_inline(q);
}

/* outcome_syncing - m's words wait for their sync */
int
outcome_syncing(const struct qr_msg *m)
{
	return m->sync_due || m->sync_busy;
}

/* outcome_room - may another batch start (the power-loss bound) */
int
outcome_room(const struct queuerun *q)
{
	return (size_t)q->inflight + q->out.unsynced <
	       2 * (size_t)q->dc->base.threads;
}

/* What an expiry fails its recipients with. */
struct outcome_expiry {
	struct queuerun *q;
	struct qr_msg *m;
	int n; /* recipients failed so far */
	char diag[SPOOL_STATE_ERROR_MAX + 80];
};

/* outcome_expire_one - spool_state_each's callback: one recipient still
 * to do fails */
static int
outcome_expire_one(void *arg, const struct spool_rcpt *rc)
{
	struct outcome_expiry *x = arg;

	fail_log_add(
	    x->q, x->m, rc->off, rc->status, rc->addr, "4.4.7", x->diag);
	x->n++;
	return 0;
}

/* outcome_expire - past its lifetime: every recipient still to do
 * fails, read from the state file in order */
static int
outcome_expire(struct queuerun *q, struct qr_msg *m, double now)
{
	const struct delivery_params *p = &q->dc->base;
	long long life =
	    m->lm.st.sender[0] == '\0' ? p->bounce_lifetime : p->queue_lifetime;
	struct outcome_expiry x = {q, m, 0, ""};

	if (now < (double)(m->lm.st.arrival + life) ||
	    m->lm.st.count[SPOOL_RCPT_PENDING] +
		    m->lm.st.count[SPOOL_RCPT_DEFERRED] ==
		0)
		return 0;
	snprintf(x.diag, sizeof(x.diag),
	    "x-mjq; delivery time expired (last error: %s)", m->last_error);
	if (spool_state_each(&m->lm.st,
		SPOOL_RCPT_BIT(SPOOL_RCPT_PENDING) |
		    SPOOL_RCPT_BIT(SPOOL_RCPT_DEFERRED),
		outcome_expire_one, &x) == -1)
		log_warn("%s: cannot read %s", m->lm.name, m->lm.st.path);
	return x.n;
}

/* outcome_mark - a batch of failed recipients gets its new word */
static void
outcome_mark(
    struct qr_msg *m, const struct fail_batch *b, enum spool_rcpt_status to)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (spool_state_set_rcpt(
			&m->lm.st, b->rec[i].off, SPOOL_RCPT_FAILED, to) == -1)
			log_warn(
			    "%s: cannot update %s", m->lm.name, m->lm.st.path);
}

/* outcome_bounce - one report per FAIL_BATCH_MAX failed recipients, read
 * from the fail log once, in order; after each its recipients are
 * bounced.  -1 leaves the recipients of reports not committed deferred
 * (or failed, when the log cannot be read: outcome_finish defers them). */
static int
outcome_bounce(
    struct queuerun *q, struct qr_msg *m, size_t nbounce, int expired)
{
	struct dsn_part part = {NULL, 0, 0, nbounce, expired};
	enum spool_rcpt_status to = SPOOL_RCPT_BOUNCED;
	struct fail_batch *batch;
	int nobounce, k, r = 0;

	if ((nobounce = m->lm.st.sender[0] == '\0' ||
			strcmp(m->lm.st.kind, "dsn") == 0))
		log_info("%s: sender is the null sender: no bounce for %zu "
			 "recipient(s)",
		    m->lm.name, nbounce);
	if ((batch = malloc(sizeof(*batch))) == NULL ||
	    fail_log_rewind(m) == -1) {
		free(batch);
		return -1;
	}
	part.batch = batch;
	part.parts = (nbounce + FAIL_BATCH_MAX - 1) / FAIL_BATCH_MAX;
	for (part.part = 1; (k = fail_log_batch(m, batch)) == 1; part.part++) {
		if (!nobounce && to == SPOOL_RCPT_BOUNCED &&
		    dsn_create(&q->fn, &m->lm, &part) == -1) {
			log_warn("%s: cannot commit the bounce; trying again "
				 "later",
			    m->lm.name);
			to = SPOOL_RCPT_DEFERRED;
			r = -1;
		}
		outcome_mark(m, batch, to);
		fail_log_batch_free(batch);
	}
	if (k == -1) {
		log_warn(
		    "%s: cannot read back its failed recipients", m->lm.name);
		r = -1;
	}
	free(batch);
	return r;
}

/* outcome_backoff - seconds to the next try: the message's age, kept
 * between minimal_ and maximal_backoff_time, as Postfix does */
static long long
outcome_backoff(struct queuerun *q, const struct qr_msg *m, double now)
{
	const struct delivery_params *p = &q->dc->base;
	long long age = (long long)now - m->lm.st.arrival;

	if (age < p->min_backoff)
		age = p->min_backoff;
	if (age > p->max_backoff)
		age = p->max_backoff;
	return age;
}

/* outcome_finish - nothing of m is waiting or in flight: end the pass
 * (removed, or put off to its next try); the step loop then releases it */
int
outcome_finish(struct queuerun *q, struct qr_msg *m, double now)
{
	size_t ndefer, nbounce;
	const char *left;
	int expired;
	long long next;

	expired = outcome_expire(q, m, now) > 0;
	if (m->fails_lost > 0 && m->nfail > 0) {
		/* The fail log broke: the reasons it held are gone too, so
		 * no bounce now; those recipients are deferred again. */
		if (spool_state_recover(&m->lm.st) == -1)
			log_warn(
			    "%s: cannot update %s", m->lm.name, m->lm.st.path);
		m->fails_lost += m->nfail;
		m->nfail = 0;
	}
	nbounce = m->nfail;
	if (nbounce > 0 && outcome_bounce(q, m, nbounce, expired) == -1 &&
	    m->lm.st.count[SPOOL_RCPT_FAILED] > 0 &&
	    spool_state_recover(&m->lm.st) == -1)
		log_warn("%s: cannot update %s", m->lm.name, m->lm.st.path);
	ndefer = spool_state_todo(&m->lm.st);
	if (ndefer == 0) {
		/* spool_finish: synced, the message, then its state */
		if (spool_finish(&m->lm.st, m->lm.path, &left) == -1)
			log_warn("%s: delivered, but cannot remove %s",
			    m->lm.name, left);
		else
			log_info("%s: removed", m->lm.name);
	} else {
		next = outcome_backoff(q, m, now);
		if (spool_state_set_error(&m->lm.st, m->last_error) == -1 ||
		    spool_state_set_counts(&m->lm.st, m->lm.st.tries + 1,
			m->lm.st.crashes, 0) == -1 ||
		    spool_state_sync(&m->lm.st) == -1)
			log_warn(
			    "%s: cannot update %s", m->lm.name, m->lm.st.path);
		if (spool_state_set_next(m->lm.fd, (time_t)now + next) == -1)
			log_warn("%s: cannot set its next try", m->lm.name);
		log_info("%s: %zu recipient(s) deferred, next try in %llds",
		    m->lm.name, ndefer, next);
	}
	q->out.done++;
	return 0;
}
