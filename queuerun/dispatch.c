/*
 * dispatch.c - the one place that decides what to deliver next.
 *
 * Until the scheduler (sched_*.c) drives it, the policy is plain: each
 * destination (transport + nexthop) has a queue of batches and a
 * concurrency limit; ready destinations sit on a ring and are served
 * round-robin, one batch per turn, so a big destination cannot starve
 * small ones.  The limit is a small feedback loop in the spirit of
 * postfix-scheduler.txt: a connection failure lowers it to what is still
 * in flight (and a destination with nothing in flight is dead until
 * minimal_backoff_time: its batches are deferred without a try); a
 * success raises it by one up to destination_concurrency_limit.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "queuerun_impl.h"

/* dispatch_hash - FNV-1a over transport and nexthop */
static size_t
dispatch_hash(enum qr_transport t, const char *nexthop, size_t size)
{
	uint32_t h = 2166136261u ^ (uint32_t)t;

	for (; *nexthop; nexthop++)
		h = (h ^ (unsigned char)*nexthop) * 16777619u;
	return h % size;
}

/* dispatch_grow - double the destination table */
static int
dispatch_grow(struct queuerun *q)
{
	size_t size = q->dtab_size ? q->dtab_size * 2 : 64, i;
	struct qr_dest **tab, *d, *next;

	if ((tab = calloc(size, sizeof(*tab))) == NULL)
		return -1;
	for (i = 0; i < q->dtab_size; i++)
		for (d = q->dtab[i]; d != NULL; d = next) {
			size_t h =
			    dispatch_hash(d->transport, d->nexthop, size);
			next = d->hnext;
			d->hnext = tab[h];
			tab[h] = d;
		}
	free(q->dtab);
	q->dtab = tab;
	q->dtab_size = size;
	return 0;
}

/* dispatch_dest - find or make a destination */
struct qr_dest *
dispatch_dest(struct queuerun *q, enum qr_transport t, const char *nexthop)
{
	struct qr_dest *d;
	size_t h;

	if (q->ndest >= q->dtab_size && dispatch_grow(q) == -1)
		return NULL;
	h = dispatch_hash(t, nexthop, q->dtab_size);
	for (d = q->dtab[h]; d != NULL; d = d->hnext)
		if (d->transport == t && strcmp(d->nexthop, nexthop) == 0)
			return d;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	if ((d->nexthop = strdup(nexthop)) == NULL) {
		free(d);
		return NULL;
	}
	d->transport = t;
	d->params = queuerun_params(q, t);
	/* Start where Postfix starts (initial_destination_concurrency) and
	 * grow with each success. */
	d->limit = q->dc.sched_transport[t].initial_concurrency;
	if (d->limit < 1 || d->limit > d->params->conc_limit)
		d->limit = (int)d->params->conc_limit;
	d->hnext = q->dtab[h];
	q->dtab[h] = d;
	q->ndest++;
	return d;
}

/* dispatch_ready - put a destination on the ring if it can take a batch */
void
dispatch_ready(struct queuerun *q, struct qr_dest *d)
{
	if (d->in_ready || d->head == NULL || d->busy >= d->limit)
		return;
	d->in_ready = 1;
	if (q->ready == NULL) {
		d->rnext = d;
	} else {
		d->rnext = q->ready->rnext;
		q->ready->rnext = d;
	}
	q->ready = d; /* the new tail */
}

/* dispatch_batch - a new batch of m for d */
static struct qr_batch *
dispatch_batch(struct qr_msg *m, struct qr_dest *d)
{
	struct qr_batch *b;
	size_t cap = (size_t)d->params->rcpt_limit;

	if (cap > m->st.nrcpt)
		cap = m->st.nrcpt;
	if ((b = calloc(1, sizeof(*b))) == NULL ||
	    (b->rcpt = calloc(cap, sizeof(*b->rcpt))) == NULL) {
		free(b);
		return NULL;
	}
	b->cap = cap;
	b->msg = m;
	b->dest = d;
	b->transport = d->transport;
	b->params = d->params;
	b->nexthop = d->nexthop;
	strlcpy(b->sender, m->st.sender, sizeof(b->sender));
	b->datafd = m->datafd;
	b->datasize = m->datasize;
	b->verp = m->st.verp && m->st.sender[0] != '\0';
	b->verp_prefix = m->verp_prefix;
	b->verp_domain = m->domain;
	if (d->tail != NULL)
		d->tail->next = b;
	else
		d->head = b;
	d->tail = b;
	m->batches++;
	return b;
}

/* dispatch_add - route every recipient still to do into batches */
int
dispatch_add(struct queuerun *q, struct qr_msg *m)
{
	char nexthop[QR_NEXTHOP_MAX];
	enum qr_transport t;
	struct qr_dest *d;
	struct qr_batch *b;
	size_t i, n = m->st.nrcpt ? m->st.nrcpt : 1;

	if ((m->pass = calloc(n, 1)) == NULL ||
	    (m->why = calloc(n, sizeof(char *))) == NULL)
		return -1;
	for (i = 0; i < m->st.nrcpt; i++) {
		if (m->st.status[i] != SPOOL_RCPT_PENDING &&
		    m->st.status[i] != SPOOL_RCPT_DEFERRED)
			continue;
		if (route_rcpt(
			q, m->st.rcpt[i], &t, nexthop, sizeof(nexthop)) == -1) {
			m->pass[i] = QR_PASS_BOUNCE;
			m->why[i] =
			    strdup("5.1.3\tx-mjq; bad recipient address");
			continue;
		}
		if ((d = dispatch_dest(q, t, nexthop)) == NULL)
			return -1;
		b = d->tail;
		/* One envelope sender per transaction: VERP over SMTP means
		 * one recipient per batch. */
		if (b == NULL || b->msg != m || b->n >= b->cap ||
		    (b->verp && t == QR_SMTP && b->n > 0))
			if ((b = dispatch_batch(m, d)) == NULL)
				return -1;
		b->rcpt[b->n++] = (uint32_t)i;
		dispatch_ready(q, d);
	}
	return 0;
}

/* dispatch_pop - the next batch of a destination */
static struct qr_batch *
dispatch_pop(struct qr_dest *d)
{
	struct qr_batch *b = d->head;

	if ((d->head = b->next) == NULL)
		d->tail = NULL;
	b->next = NULL;
	return b;
}

/* dispatch_prepare - what the worker needs, copied out of main's data */
static int
dispatch_prepare(struct qr_batch *b)
{
	size_t i;

	if ((b->addr = calloc(b->n, sizeof(*b->addr))) == NULL ||
	    (b->res = calloc(b->n, sizeof(*b->res))) == NULL)
		return -1;
	for (i = 0; i < b->n; i++)
		b->addr[i] = b->msg->st.rcpt[b->rcpt[i]];
	return 0;
}

/* dispatch_run - hand batches to workers while destinations have room,
 * round-robin over the ready ring; returns how many were handed out */
int
dispatch_run(struct queuerun *q, double now)
{
	struct qr_dest *d;
	struct qr_batch *b;
	int n = 0;

	while (q->ready != NULL && q->inflight < q->dc.base.threads) {
		d = q->ready->rnext; /* the head */
		if (d == q->ready)
			q->ready = NULL;
		else
			q->ready->rnext = d->rnext;
		d->in_ready = 0;
		if (d->head == NULL || d->busy >= d->limit)
			continue;
		b = dispatch_pop(d);
		d->busy++;
		q->inflight++;
		if (dispatch_prepare(b) == -1) {
			log_warnx("%s: out of memory", b->msg->name);
			deliver_all(b, QR_DEFERRED, 0, "4.3.0",
			    "out of memory in the runner");
			outcome_batch(q, b, now);
		} else if (d->dead_until > now) {
			/* Dead: no try until the backoff has passed. */
			deliver_all(b, QR_DEFERRED, 0, "4.4.1", d->dead_why);
			strlcpy(b->relay, "none", sizeof(b->relay));
			outcome_batch(q, b, now);
		} else {
			worker_submit(q->pool, b);
			n++;
		}
		dispatch_ready(q, d);
	}
	return n;
}

/* dispatch_free - free every destination (no batch may be left) */
void
dispatch_free(struct queuerun *q)
{
	struct qr_dest *d, *next;
	size_t i;

	for (i = 0; i < q->dtab_size; i++)
		for (d = q->dtab[i]; d != NULL; d = next) {
			next = d->hnext;
			free(d->nexthop);
			free(d);
		}
	free(q->dtab);
	q->dtab = NULL;
	q->dtab_size = q->ndest = 0;
	q->ready = NULL;
}
