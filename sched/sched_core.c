/*
 * sched_core.c - the scheduler object and the runner's delivery loop:
 * create and free, transports, round-robin selection over transports,
 * outcomes, wakeups, and read-only views of entries and destinations.
 *
 * The delivery loop is: sched_core_select() until it returns NULL, deliver
 * or defer each entry as told, report each with sched_core_done(); when
 * nothing is selectable, sleep until a delivery ends, new mail arrives or
 * sched_core_wakeup() (a rate-limited destination gets room again).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_core.h"
#include "sched_job.h"
#include "sched_queue.h"
#include "sched_rcpt.h"
#include "sched_select.h"

/* sched_core_alloc - malloc, charged to the scheduler's byte count */

void *
sched_core_alloc(struct sched *s, size_t size)
{
	void *p;

	if ((p = malloc(size)) == NULL)
		return NULL;
	s->mem += size;
	if (s->mem > s->mem_peak)
		s->mem_peak = s->mem;
	return p;
}

/* sched_core_release - free what sched_core_alloc() gave */

void
sched_core_release(struct sched *s, void *p, size_t size)
{
	s->mem -= size;
	free(p);
}

/* sched_core_log - one debug line through the runner's callback */

void
sched_core_log(struct sched *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (s->cb.log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->cb.log(s->cb.arg, line);
}

/* sched_core_create - a scheduler with global limits from *p */

struct sched *
sched_core_create(
    const struct sched_params *p, const struct sched_callbacks *cb)
{
	struct sched *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->p = *p;
	s->cb = *cb;
	SCHED_LIST_INIT(s->deferred);
	SCHED_LIST_INIT(s->msgs);
	s->mem = s->mem_peak = sizeof(*s);
	return s;
}

/* sched_core_find - the transport with this name, or NULL */

struct sched_transport *
sched_core_find(const struct sched *s, const char *name)
{
	size_t i;

	/* Transports are few (smtp, relay, local): a scan is cheapest. */
	for (i = 0; i < s->ntr; i++)
		if (strcmp(s->tr[i]->name, name) == 0)
			return s->tr[i];
	return NULL;
}

/* sched_core_transport - add a transport with its own parameters */

int
sched_core_transport(
    struct sched *s, const char *name, const struct sched_params *p)
{
	struct sched_transport *t, **tr;

	if (sched_core_find(s, name) != NULL)
		return -1;
	if ((tr = reallocarray(s->tr, s->ntr + 1, sizeof(*tr))) == NULL)
		return -1;
	s->tr = tr;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return -1;
	if ((t->name = strdup(name)) == NULL) {
		free(t);
		return -1;
	}
	t->sched = s;
	t->p = *p;
	SCHED_LIST_INIT(t->job_list);
	SCHED_LIST_INIT(t->job_bytime);
	t->rcpt_unused = p->recipient_limit;
	t->rcpt_per_stack = p->extra_recipient_limit;
	htab_init(&t->queues, &s->mem);
	htab_init(&t->peers, &s->mem);
	s->tr[s->ntr++] = t;
	return 0;
}

/* sched_core_drop_queue - teardown: free one queue */

static void
sched_core_drop_queue(struct htab_node *n, void *arg)
{
	struct sched_queue *q = (void *)n;

	(void)arg;
	sched_core_release(
	    q->transport->sched, q, sizeof(*q) + strlen(q->name) + 1);
}

/* sched_core_free - release everything; busy entries must be done first */

void
sched_core_free(struct sched *s)
{
	size_t i;

	if (s == NULL)
		return;
	sched_rcpt_teardown(s);
	for (i = 0; i < s->ntr; i++) {
		htab_drain(&s->tr[i]->queues, sched_core_drop_queue, s);
		free(s->tr[i]->name);
		free(s->tr[i]);
	}
	free(s->tr);
	free(s->wake);
	free(s);
}

/* sched_core_wake - remember to unpark a queue at a given time */

int
sched_core_wake(struct sched *s, struct sched_queue *q, double at)
{
	struct sched_wake *w, tmp;
	size_t i, up;

	if (q->wake_at != 0 && q->wake_at <= at)
		return 0;
	if (s->nwake == s->wake_cap) {
		if ((w = reallocarray(s->wake,
			 s->wake_cap ? s->wake_cap * 2 : 16, sizeof(*w))) ==
		    NULL)
			return -1;
		s->wake = w;
		s->wake_cap = s->wake_cap ? s->wake_cap * 2 : 16;
	}
	q->wake_at = at;
	q->wake_refs++;
	i = s->nwake++;
	s->wake[i].at = at;
	s->wake[i].queue = q;
	for (; i > 0 && s->wake[up = (i - 1) / 2].at > s->wake[i].at; i = up) {
		tmp = s->wake[up];
		s->wake[up] = s->wake[i];
		s->wake[i] = tmp;
	}
	return 0;
}

/* sched_core_wake_pop - remove the earliest wakeup from the heap */

static struct sched_wake
sched_core_wake_pop(struct sched *s)
{
	struct sched_wake top = s->wake[0], tmp;
	size_t i = 0, c;

	s->wake[0] = s->wake[--s->nwake];
	while ((c = 2 * i + 1) < s->nwake) {
		if (c + 1 < s->nwake && s->wake[c + 1].at < s->wake[c].at)
			c++;
		if (s->wake[i].at <= s->wake[c].at)
			break;
		tmp = s->wake[c];
		s->wake[c] = s->wake[i];
		s->wake[i] = tmp;
		i = c;
	}
	return top;
}

/* sched_core_wakeups - unpark queues whose time has come */

static void
sched_core_wakeups(struct sched *s, double now)
{
	struct sched_wake w;

	while (s->nwake > 0 && s->wake[0].at <= now) {
		w = sched_core_wake_pop(s);
		w.queue->wake_refs--;
		/* Stale heap items (a later or earlier wake replaced it): the
		 * queue was kept for them, and may go now. */
		if (w.queue->wake_at != w.at) {
			sched_queue_idle(w.queue, now);
			continue;
		}
		w.queue->wake_at = 0;
		w.queue->shared_wait = 0;
		if (sched_queue_accepts(w.queue, now))
			sched_queue_unpark(w.queue);
	}
}

/* sched_core_shared_queue - the heap item i is the live wakeup of a
 * queue refused by the shared window */
static struct sched_queue *
sched_core_shared_queue(const struct sched *s, size_t i)
{
	struct sched_queue *q = s->wake[i].queue;

	return q->shared_wait && q->wake_at == s->wake[i].at ? q : NULL;
}

/* sched_core_shared_waiting - queues refused by the shared window wait */

int
sched_core_shared_waiting(const struct sched *s)
{
	size_t i;

	for (i = 0; i < s->nwake; i++)
		if (sched_core_shared_queue(s, i) != NULL)
			return 1;
	return 0;
}

/* sched_core_shared_retry - another runner gave a slot back: queues
 * refused by the shared window are asked again now */

void
sched_core_shared_retry(struct sched *s, double now)
{
	struct sched_queue **v, *q;
	size_t i, n = 0;

	if (s->nwake == 0 || (v = malloc(s->nwake * sizeof(*v))) == NULL)
		return; /* (then their fallback wakeup asks again) */
	for (i = 0; i < s->nwake; i++)
		if ((q = sched_core_shared_queue(s, i)) != NULL &&
		    q->wake_at > now)
			v[n++] = q;
	for (i = 0; i < n; i++)
		sched_core_wake(s, v[i], now);
	free(v);
}

/* sched_core_wakeup - earliest time a waiting queue gets room, or 0 */

double
sched_core_wakeup(const struct sched *s)
{
	return s->nwake > 0 ? s->wake[0].at : 0;
}

/* sched_core_select - the next entry to deliver or defer, or NULL */

struct sched_entry *
sched_core_select(struct sched *s, double now, enum sched_action *act)
{
	struct sched_transport *t;
	struct sched_entry *e;
	size_t i;

	s->now = now;
	sched_core_wakeups(s, now);
	/* Deferrals first: they cost nothing and free memory. */
	if ((e = s->deferred.head) != NULL) {
		*act = SCHED_DEFER;
		return e;
	}
	for (i = 0; i < s->ntr; i++) {
		t = s->tr[(s->rr + i) % s->ntr];
		if (t->busy >= t->p.transport_concurrency_limit)
			continue;
		if ((e = sched_select_entry(t, now)) != NULL) {
			/* Round-robin: the next call starts after this one. */
			s->rr = (s->rr + i + 1) % s->ntr;
			*act = e->state == ENTRY_DEFER ? SCHED_DEFER
						       : SCHED_DELIVER;
			return e;
		}
	}
	/* A refill inside selection may have met a dead destination. */
	if ((e = s->deferred.head) != NULL) {
		*act = SCHED_DEFER;
		return e;
	}
	return NULL;
}

/* sched_core_done - the outcome of a selected entry; frees the entry */

int
sched_core_done(struct sched *s, struct sched_entry *e,
    enum sched_outcome outcome, double now, struct sched_dest_state *st)
{
	int flags = 0;

	s->now = now;
	if (e->state == ENTRY_DEFER) {
		/* Handed back, not attempted: no feedback. */
		SCHED_LIST_UNLINK(s->deferred, e, link);
	} else {
		sched_queue_done(e->peer->queue, outcome, now);
	}
	/* The state after feedback, before an idle queue is forgotten. */
	if (st != NULL)
		sched_queue_state(e->peer->queue, st);
	sched_rcpt_finish(s, e, &flags);
	return flags;
}

/* sched_entry_msg_ctx - the runner's message of an entry */

void *
sched_entry_msg_ctx(const struct sched_entry *e)
{
	return e->peer->job->msg->ctx;
}

/* sched_entry_transport - the transport name of an entry */

const char *
sched_entry_transport(const struct sched_entry *e)
{
	return e->peer->job->transport->name;
}

/* sched_entry_nexthop - the destination of an entry */

const char *
sched_entry_nexthop(const struct sched_entry *e)
{
	return e->peer->queue->name;
}

/* sched_entry_rcpts - the recipient ids of an entry */

const uint32_t *
sched_entry_rcpts(const struct sched_entry *e, size_t *n)
{
	*n = e->nrcpt;
	return e->cap ? e->rcpt.ptr : e->rcpt.inl;
}

/* sched_core_queue - the queue of a transport and nexthop, or NULL */

static struct sched_queue *
sched_core_queue(
    const struct sched *s, const char *transport, const char *nexthop)
{
	struct sched_transport *t;

	if ((t = sched_core_find(s, transport)) == NULL)
		return NULL;
	return sched_queue_find(t, nexthop);
}

/* sched_dest_state - a destination's state; -1 if the scheduler has none */

int
sched_dest_state(const struct sched *s, const char *transport,
    const char *nexthop, struct sched_dest_state *st)
{
	struct sched_queue *q;

	if ((q = sched_core_queue(s, transport, nexthop)) == NULL)
		return -1;
	sched_queue_state(q, st);
	return 0;
}

/* sched_dest_load - adopt a destination's shared state */

int
sched_dest_load(struct sched *s, const char *transport, const char *nexthop,
    const struct sched_dest_state *st, double now)
{
	struct sched_queue *q;

	if (st->ds.window < 0 ||
	    (q = sched_core_queue(s, transport, nexthop)) == NULL)
		return -1;
	s->now = now;
	sched_queue_load(q, st, now);
	if (q->parked.head != NULL && sched_queue_accepts(q, now))
		sched_queue_unpark(q);
	return 0;
}

/* sched_dest_limit - set a destination's own client concurrency limit */

int
sched_dest_limit(
    struct sched *s, const char *transport, const char *nexthop, int limit)
{
	struct sched_transport *t;
	struct sched_queue *q;

	if ((t = sched_core_find(s, transport)) == NULL ||
	    (q = sched_queue_obtain(t, nexthop)) == NULL)
		return -1;
	q->limit = limit;
	if (limit > 0 && q->ds.window > limit)
		q->ds.window = limit;
	return 0;
}

/* sched_core_memory - bytes held now, and the peak */

size_t
sched_core_memory(const struct sched *s, size_t *peak)
{
	if (peak != NULL)
		*peak = s->mem_peak;
	return s->mem;
}

/* sched_core_rcpts - recipients in core now, and the peak */

long
sched_core_rcpts(const struct sched *s, long *peak)
{
	if (peak != NULL)
		*peak = s->rcpt_peak;
	return s->rcpt_in_core;
}
