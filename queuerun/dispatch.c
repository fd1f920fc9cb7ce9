/*
 * dispatch.c - the one place that decides what to deliver next: the
 * runner's side of the scheduler (sched.h, SCHEDULER_README).
 *
 * Each claimed message is entered into the scheduler with the number of
 * recipients still to do.  The scheduler reads them in batches through
 * the refill callback, which reads the state file in order and routes
 * each recipient to an interned destination (transport + nexthop, and
 * the source address when a sending-address pool applies), so a
 * huge list is scheduled with bounded memory (rcpt_pool.c).  It forms
 * entries of up to
 * destination_recipient_limit recipients, applies the concurrency
 * feedback and the preemptive job selection, and says for each entry
 * "deliver" or "defer" (dead destination).  Entries become batches for
 * the worker pool; their outcome is fed back with dispatch_done.
 */
#include <stdlib.h>
#include <string.h>

#include "crash.h"
#include "deliver.h"
#include "dest_share.h"
#include "dispatch.h"
#include "outcome.h"
#include "fail_log.h"
#include "log.h"
#include "qr_batch.h"
#include "qr_dest.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "rcpt_pool.h"
#include "route.h"
#include "sched.h"
#include "source_pick.h"

/* dispatch_source - the destination with its source address: smtp
 * mail from a sending-address pool leaves from one of its addresses;
 * NULL when the pool has none usable (the recipient waits) or memory
 * ran out */
static struct qr_dest *
dispatch_source(struct queuerun *q, const struct qr_msg *m,
    const struct spool_rcpt *rc, enum deliver_transport t, const char *nexthop)
{
	const struct delivery_source *src = NULL;
	struct source_pick_ask ask = {NULL, NULL};
	char domain[NAME_DOMAIN_MAX + 1];
	struct qr_dest *d;
	int wait;

	/* No pool configured: nothing to look up, per recipient. */
	if (t == DELIVER_SMTP && q->srcpick != NULL &&
	    route_domain(rc->addr, domain, sizeof(domain)) == 0 &&
	    (src = source_pick(q, m, domain, nexthop, &ask, &wait)) == NULL &&
	    wait)
		return NULL;
	if ((d = qr_dest_get(&q->dests, t, nexthop, src)) != NULL &&
	    d->ask.fn == NULL && src != NULL)
		d->ask = ask;
	return d;
}

/* dispatch_route - the destination of one recipient; NULL when its
 * address cannot be routed (it fails) or memory ran out (it waits) */
static struct qr_dest *
dispatch_route(
    struct queuerun *q, struct qr_msg *m, const struct spool_rcpt *rc)
{
	char nexthop[DELIVER_NEXTHOP_MAX];
	enum deliver_transport t;

	if (m->lm.archive[0] != '\0' &&
	    strcmp(rc->addr, m->lm.archive_rcpt) == 0) {
		/* The list's archive copy: its own maildir, whose path,
		 * cut, would be another directory. */
		t = DELIVER_MAILDIR;
		if (strlcpy(nexthop, m->lm.archive, sizeof(nexthop)) >=
		    sizeof(nexthop)) {
			log_info("%s: to=<%s>, relay=none, delay=0.00, "
				 "dsn=5.3.5, status=bounced (archive path "
				 "too long)",
			    m->lm.name, rc->addr);
			fail_log_add(q, m, rc->off, rc->status, rc->addr,
			    "5.3.5", "x-mjq; archive path too long");
			return NULL;
		}
	} else if (route_rcpt(q, rc->addr, &t, nexthop, sizeof(nexthop)) ==
		   -1) {
		log_info("%s: to=<%s>, relay=none, delay=0.00, dsn=5.1.3, "
			 "status=bounced (bad recipient address)",
		    m->lm.name, rc->addr);
		fail_log_add(q, m, rc->off, rc->status, rc->addr, "5.1.3",
		    "x-mjq; bad recipient address");
		return NULL;
	}
	return dispatch_source(q, m, rc, t, nexthop);
}

/* dispatch_refill - the scheduler's callback: up to max more recipients
 * of a message, read from its state file; returns how many are left
 * unread.  A recipient that cannot be read or entered stays as the file
 * has it (pending or deferred): tried again at the next pass. */
static long
dispatch_refill(void *arg, struct sched_msg *sm, void *ctx, long max)
{
	struct queuerun *q = arg;
	struct qr_msg *m = ctx;
	struct spool_rcpt rc;
	struct qr_dest *d;
	uint32_t id;
	int k;

	while (max > 0 && m->unread > 0) {
		if ((k = spool_state_read_rcpt(m->reader, &rc)) != 1) {
			if (k == -1)
				log_warn("%s: cannot read %s", m->lm.name,
				    m->lm.st.path);
			m->unread = 0;
			break;
		}
		if (rc.status != SPOOL_RCPT_PENDING &&
		    rc.status != SPOOL_RCPT_DEFERRED)
			continue;
		m->unread--;
		if ((d = dispatch_route(q, m, &rc)) == NULL)
			continue;
		if (rcpt_pool_add(&q->rcpts, &rc, &id) == -1) {
			log_warn("%s: no memory for <%s>", m->lm.name, rc.addr);
			continue;
		}
		if (sched_rcpt_add(q->sched, sm,
			delivery_transport_names[d->transport], d->name,
			id) == -1) {
			log_warnx(
			    "%s: scheduler refused a recipient", m->lm.name);
			rcpt_pool_drop(&q->rcpts, id);
			continue;
		}
		max--;
	}
	if (m->unread == 0) {
		free(m->reader);
		m->reader = NULL;
	}
	return (long)m->unread;
}

/* dispatch_log - the scheduler's feedback debugging */
static void
dispatch_log(void *arg, const char *line)
{
	(void)arg;
	log_info("%s", line);
}

/* dispatch_open - the scheduler with one transport per transport kind */
int
dispatch_open(struct queuerun *q, char *err, size_t errlen)
{
	struct sched_callbacks cb = {.refill = dispatch_refill,
	    .log = dispatch_log,
	    .arg = q,
	    .admit = dest_share_admit};
	int t;

	qr_dest_init(&q->dests);
	dest_share_open(q);
	if (source_pick_open(q) == -1) {
		snprintf(err, errlen, "no memory for the source pools");
		return -1;
	}
	if ((q->sched = sched_core_create(&q->dc->sched, &cb)) == NULL) {
		snprintf(err, errlen, "cannot create the scheduler");
		return -1;
	}
	for (t = 0; t < DELIVER_NTRANSPORT; t++)
		if (sched_core_transport(q->sched, delivery_transport_names[t],
			&q->dc->sched_transport[t]) == -1) {
			snprintf(err, errlen, "cannot add transport %s",
			    delivery_transport_names[t]);
			return -1;
		}
	return 0;
}

/* dispatch_add - enter a message into the scheduler with the number
 * of its recipients still to do; the scheduler reads them in batches
 * (dispatch_refill).  A message with nothing to deliver is finished at
 * once. */
int
dispatch_add(struct queuerun *q, struct qr_msg *m, double now)
{
	m->unread = m->lm.st.count[SPOOL_RCPT_PENDING] +
		    m->lm.st.count[SPOOL_RCPT_DEFERRED];
	if (m->unread == 0) {
		m->finished = 1;
		return 0;
	}
	if ((m->reader = malloc(sizeof(*m->reader))) == NULL)
		return -1;
	spool_state_read_start(m->reader, m->lm.st.fd, m->lm.st.rcpt_start);
	if ((m->smsg = sched_msg_add(q->sched, m, (double)m->lm.st.arrival,
		 (long)m->unread, now)) == NULL) {
		if (m->unread > 0)
			return -1;
		m->finished = 1; /* every recipient failed at routing */
	}
	return 0;
}

/* dispatch_batch_free - free a batch */
static void
dispatch_batch_free(struct qr_batch *b)
{
	free(b->rcpt);
	free(b->d.addr);
	free(b->d.res);
	free(b);
}

/* dispatch_batch - a batch for the worker from a selected entry */
static struct qr_batch *
dispatch_batch(struct queuerun *q, struct sched_entry *e)
{
	struct qr_msg *m = sched_entry_msg_ctx(e);
	const struct qr_dest *d;
	const uint32_t *ids;
	struct qr_batch *b;
	size_t n, i;

	ids = sched_entry_rcpts(e, &n);
	if (test_fault_batch() || (b = calloc(1, sizeof(*b))) == NULL)
		return NULL;
	b->entry = e;
	b->msg = m;
	b->share_rec = b->share_slot = -1;
	b->d.n = n;
	if ((b->rcpt = calloc(n ? n : 1, sizeof(*b->rcpt))) == NULL ||
	    (b->d.addr = calloc(n ? n : 1, sizeof(*b->d.addr))) == NULL ||
	    (b->d.res = calloc(n ? n : 1, sizeof(*b->d.res))) == NULL) {
		dispatch_batch_free(b);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		b->rcpt[i] = ids[i];
		b->d.addr[i] = rcpt_pool_get(&q->rcpts, ids[i])->addr;
	}
	/* Every name the scheduler has came from qr_dest_get. */
	if ((d = qr_dest_find(&q->dests, sched_entry_transport(e),
		 sched_entry_nexthop(e))) == NULL) {
		dispatch_batch_free(b);
		return NULL;
	}
	b->d.transport = d->transport;
	b->d.params = &q->dc->transport[b->d.transport];
	b->d.nexthop = d->nexthop;
	b->d.source = d->source;
	b->d.source_for = d->ask.fn;
	b->d.source_ctx = d->ask.ctx;
	b->d.dest = d->name;
	(void)strlcpy(
	    b->d.sender, m->lm.st.sender, sizeof(b->d.sender)); /* same size */
	b->d.datafd = m->lm.datafd;
	b->d.datasize = m->lm.datasize;
	b->d.verp = m->lm.st.verp && m->lm.st.sender[0] != '\0';
	b->d.verp_prefix = m->lm.verp_prefix;
	b->d.verp_domain = m->lm.domain;
	b->d.head = m->lm.head;
	m->batches++;
	return b;
}

/* dispatch_run - hand out what the scheduler selects while workers are
 * free.  An entry the scheduler defers (a dead destination) ends here
 * without a worker: its batch is returned, for the step loop to take its
 * outcome before asking for more; NULL when nothing more can go now. */
struct qr_batch *
dispatch_run(struct queuerun *q, double now)
{
	enum sched_action act;
	struct sched_entry *e;
	struct qr_batch *b;

	while (q->inflight < q->dc->base.threads && outcome_room(q) &&
	       (e = sched_core_select(q->sched, now, &act)) != NULL) {
		if ((b = dispatch_batch(q, e)) == NULL) {
			/* Memory: hand it back untried; retried next pass. */
			log_warnx("out of memory for a batch");
			dest_share_undo(q, e, now);
			sched_core_done(
			    q->sched, e, SCHED_FAIL_OTHER, now, NULL);
			break;
		}
		if (act == SCHED_DELIVER)
			dest_share_attach(q, b);
		q->inflight++;
		if (act == SCHED_DEFER) {
			deliver_batch_all(&b->d, DELIVER_DEFERRED, 0, "4.4.1",
			    "delivery temporarily suspended: the destination "
			    "is not responding");
			(void)strlcpy(b->d.relay, "none", sizeof(b->d.relay));
			return b;
		}
		deliver_pool_submit(q->pool, &b->d);
	}
	return NULL;
}

/* dispatch_done - a batch's outcome is written (outcome_batch): feed it
 * back to the scheduler and free the batch */
void
dispatch_done(struct queuerun *q, struct qr_batch *b, double now)
{
	struct qr_msg *m = b->msg;
	int flags;

	q->inflight--;
	flags = dest_share_done(
	    q, b, b->d.negative ? SCHED_CONN_FAIL : SCHED_OK, now);
	if (flags & SCHED_MSG_FINISHED)
		m->finished = 1;
	b->entry = NULL;
	m->batches--;
	dispatch_batch_free(b);
}

/* dispatch_wakeup - when the scheduler has work again without an event
 * (a dead destination's probe, a rate limit), or 0 */
double
dispatch_wakeup(const struct queuerun *q)
{
	return q->sched != NULL ? sched_core_wakeup(q->sched) : 0;
}

/* dispatch_free - the scheduler and every destination */
void
dispatch_free(struct queuerun *q)
{

	if (q->sched != NULL)
		sched_core_free(q->sched);
	q->sched = NULL;
	dest_share_close(q);
	rcpt_pool_free(&q->rcpts);
	source_pick_close(q);
	qr_dest_free(&q->dests);
}
