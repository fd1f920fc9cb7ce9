/*
 * sched_rcpt.c - messages, recipients, peers and entries: how recipients
 * come into core in batches and leave it (SCHEDULER_README, "What
 * happens when nqmgr picks up the message" and "Dealing with memory
 * resource limits").
 *
 * A message's first batch is as large as the global in-core target allows
 * (message_recipient_limit minus what is in core, at least
 * message_recipient_minimum); later batches are as large as the recipient
 * slots its jobs hold, plus the minimum.  Each recipient is bound to a
 * (transport, nexthop) queue, its job and the job's peer for that queue, and
 * appended to the peer's last waiting entry while that has fewer than
 * destination_recipient_limit recipients.  Recipients for a dead
 * destination go straight to the defer list, without a connection attempt.
 *
 * Memory per in-core recipient is its 4-byte id in its entry, plus the
 * entry and peer, shared by up to destination_recipient_limit recipients.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_core.h"
#include "sched_job.h"
#include "sched_queue.h"
#include "sched_rcpt.h"
#include "sched_select.h"

/* sched_rcpt_peer_eq - hash callback: the peer of this (job, queue)? */

static int
sched_rcpt_peer_eq(const struct htab_node *n, const void *key)
{
	const struct sched_peer *peer = (const void *)n;
	const struct sched_peer *want = key;

	return peer->job == want->job && peer->queue == want->queue;
}

/* sched_rcpt_peer - find or create the peer of a job for a queue */

static struct sched_peer *
sched_rcpt_peer(struct sched_job *job, struct sched_queue *q)
{
	struct sched_transport *t = job->transport;
	struct sched_peer key, *peer;
	uint64_t hash = htab_ptr2(job, q);

	key.job = job;
	key.queue = q;
	if ((peer = (void *)htab_find(
		 &t->peers, hash, sched_rcpt_peer_eq, &key)) != NULL)
		return peer;
	if ((peer = sched_core_alloc(t->sched, sizeof(*peer))) == NULL)
		return NULL;
	memset(peer, 0, sizeof(*peer));
	peer->job = job;
	peer->queue = q;
	peer->where = PEER_IDLE;
	peer->hnode.hash = hash;
	if (htab_insert(&t->peers, &peer->hnode) == -1) {
		sched_core_release(t->sched, peer, sizeof(*peer));
		return NULL;
	}
	SCHED_LIST_APPEND(q->peers, peer, qlink);
	return peer;
}

/* sched_rcpt_peer_free - release a peer without entries */

static void
sched_rcpt_peer_free(struct sched_peer *peer)
{
	struct sched_transport *t = peer->job->transport;

	htab_remove(&t->peers, &peer->hnode);
	SCHED_LIST_UNLINK(peer->queue->peers, peer, qlink);
	sched_core_release(t->sched, peer, sizeof(*peer));
}

/* sched_rcpt_full - may no more recipients join this entry? */

static int
sched_rcpt_full(const struct sched_entry *e, const struct sched_params *p)
{
	return p->destination_recipient_limit > 0 &&
	       e->nrcpt >= p->destination_recipient_limit;
}

/* sched_rcpt_append - add one recipient id to an entry */

static int
sched_rcpt_append(struct sched *s, struct sched_entry *e, uint32_t id)
{
	uint32_t *ptr, ncap;

	if (e->cap == 0 && e->nrcpt < 2) {
		e->rcpt.inl[e->nrcpt++] = id;
		return 0;
	}
	if (e->cap == 0 || e->nrcpt == e->cap) {
		ncap = e->cap ? e->cap * 2 : 4;
		if ((ptr = sched_core_alloc(s, ncap * sizeof(*ptr))) == NULL)
			return -1;
		memcpy(ptr, e->cap ? e->rcpt.ptr : e->rcpt.inl,
		    e->nrcpt * sizeof(*ptr));
		if (e->cap)
			sched_core_release(
			    s, e->rcpt.ptr, e->cap * sizeof(*ptr));
		e->rcpt.ptr = ptr;
		e->cap = ncap;
	}
	e->rcpt.ptr[e->nrcpt++] = id;
	return 0;
}

/* sched_rcpt_entry - a new entry of the peer, waiting or to be deferred */

static struct sched_entry *
sched_rcpt_entry(struct sched *s, struct sched_peer *peer, int defer)
{
	struct sched_entry *e;
	struct sched_job *job = peer->job;

	if ((e = sched_core_alloc(s, sizeof(*e))) == NULL)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->peer = peer;
	peer->refcount++;
	job->read_entries++;
	job->msg->entries++;
	if (defer) {
		/* Counted as selected so the job does not wait for it. */
		e->state = ENTRY_DEFER;
		job->selected_entries++;
		SCHED_LIST_APPEND(s->deferred, e, link);
	} else {
		e->state = ENTRY_TODO;
		peer->queue->todo++;
		SCHED_LIST_APPEND(peer->entries, e, link);
		if (peer->where == PEER_IDLE)
			sched_select_ready(peer);
	}
	return e;
}

/* sched_rcpt_add - bind one recipient to its transport and nexthop */

int
sched_rcpt_add(struct sched *s, struct sched_msg *msg, const char *transport,
    const char *nexthop, uint32_t rcpt_id)
{
	struct sched_transport *t;
	struct sched_queue *q;
	struct sched_job *job;
	struct sched_peer *peer;
	struct sched_entry *e;
	int defer;

	if ((t = sched_core_find(s, transport)) == NULL ||
	    (q = sched_queue_obtain(t, nexthop)) == NULL ||
	    (job = sched_job_obtain(msg, t)) == NULL ||
	    (peer = sched_rcpt_peer(job, q)) == NULL)
		return -1;
	defer = sched_queue_dead_now(q, s->now);
	e = defer ? s->deferred.tail : peer->entries.tail;
	if (e == NULL || e->peer != peer || sched_rcpt_full(e, &t->p))
		e = sched_rcpt_entry(s, peer, defer);
	if (e == NULL || sched_rcpt_append(s, e, rcpt_id) == -1)
		return -1;
	job->rcpt_count++;
	msg->rcpt_count++;
	if (msg->rcpt_unread > 0)
		msg->rcpt_unread--;
	if (++s->rcpt_in_core > s->rcpt_peak)
		s->rcpt_peak = s->rcpt_in_core;
	return 0;
}

/* sched_rcpt_read - ask the runner for up to max recipients */

static void
sched_rcpt_read(struct sched_msg *msg, long max, double now)
{
	struct sched *s = msg->sched;
	struct sched_job *job;
	long left;

	msg->refilling = 1;
	left = s->cb.refill(s->cb.arg, msg, msg->ctx, max);
	msg->refilling = 0;
	msg->rcpt_unread = left > 0 ? left : 0;
	msg->refill_time = now;
	/* Fully read: the exact counts are known, spare slots move on. */
	if (msg->rcpt_unread == 0)
		for (job = msg->jobs.head; job != NULL; job = job->mlink.next)
			sched_job_move_limits(job);
}

/* sched_rcpt_refill - read as many more recipients as the slots allow */

void
sched_rcpt_refill(struct sched_msg *msg, double now)
{
	long max = msg->rcpt_limit - msg->rcpt_count;

	if (max > 0)
		sched_rcpt_read(msg, max, now);
}

/* sched_msg_free - release a message and its (empty) jobs */

static void
sched_msg_free(struct sched_msg *msg)
{
	struct sched *s = msg->sched;

	while (msg->jobs.head != NULL)
		sched_job_free(msg->jobs.head);
	SCHED_LIST_UNLINK(s->msgs, msg, link);
	sched_core_release(s, msg, sizeof(*msg));
}

/* sched_msg_add - a message enters core; its first batch is read */

struct sched_msg *
sched_msg_add(
    struct sched *s, void *msg_ctx, double queued, long rcpts, double now)
{
	struct sched_msg *msg;
	long first;

	s->now = now;
	if ((msg = sched_core_alloc(s, sizeof(*msg))) == NULL)
		return NULL;
	memset(msg, 0, sizeof(*msg));
	msg->sched = s;
	msg->ctx = msg_ctx;
	msg->queued = queued;
	msg->rcpt_unread = rcpts > 0 ? rcpts : 0;
	msg->rcpt_limit = s->p.message_recipient_minimum;
	SCHED_LIST_INIT(msg->jobs);
	SCHED_LIST_APPEND(s->msgs, msg, link);
	/* No jobs yet to sponsor it: the global target sizes the batch. */
	first = s->p.message_recipient_limit - s->rcpt_in_core;
	if (first < msg->rcpt_limit)
		first = msg->rcpt_limit;
	sched_rcpt_read(msg, first, now);
	if (msg->entries == 0 && msg->rcpt_unread == 0) {
		sched_msg_free(msg);
		return NULL;
	}
	return msg;
}

/* sched_rcpt_defer_todo - a dead queue hands back its waiting entries */

void
sched_rcpt_defer_todo(struct sched_queue *q)
{
	struct sched *s = q->transport->sched;
	struct sched_peer *peer;
	struct sched_entry *e;

	for (peer = q->peers.head; peer != NULL; peer = peer->qlink.next) {
		while ((e = peer->entries.head) != NULL) {
			SCHED_LIST_UNLINK(peer->entries, e, link);
			e->state = ENTRY_DEFER;
			peer->job->selected_entries++;
			q->todo--;
			SCHED_LIST_APPEND(s->deferred, e, link);
		}
		if (peer->where == PEER_READY)
			SCHED_LIST_UNLINK(peer->job->ready, peer, rlink);
		else if (peer->where == PEER_PARKED)
			SCHED_LIST_UNLINK(q->parked, peer, rlink);
		peer->where = PEER_IDLE;
	}
}

/* sched_rcpt_entry_free - release an entry and its recipient ids */

static void
sched_rcpt_entry_free(struct sched *s, struct sched_entry *e)
{
	if (e->cap)
		sched_core_release(s, e->rcpt.ptr, e->cap * sizeof(uint32_t));
	sched_core_release(s, e, sizeof(*e));
}

/* sched_rcpt_finish - an entry is dealt with: free its recipient slots */

void
sched_rcpt_finish(struct sched *s, struct sched_entry *e, int *flags)
{
	struct sched_peer *peer = e->peer;
	struct sched_queue *q = peer->queue;
	struct sched_job *job = peer->job;
	struct sched_msg *msg = job->msg;
	long n = e->nrcpt;

	job->rcpt_count -= n;
	msg->rcpt_count -= n;
	s->rcpt_in_core -= n;
	msg->entries--;
	sched_rcpt_entry_free(s, e);
	if (--peer->refcount == 0) {
		sched_rcpt_peer_free(peer);
		sched_queue_idle(q, s->now);
	}
	sched_job_move_limits(job);
	if (job->rcpt_count == 0 && msg->rcpt_unread == 0)
		sched_job_free(job);
	/* All in core is done but more is on file: read the next batch. */
	if (msg->rcpt_count == 0 && msg->rcpt_unread > 0)
		sched_rcpt_read(
		    msg, msg->rcpt_limit > 0 ? msg->rcpt_limit : 1, s->now);
	if (msg->entries == 0 && msg->rcpt_unread == 0) {
		sched_msg_free(msg);
		*flags |= SCHED_MSG_FINISHED;
	}
}

/* sched_rcpt_drop_peer - teardown: free a peer and its waiting entries */

static void
sched_rcpt_drop_peer(struct htab_node *n, void *arg)
{
	struct sched_peer *peer = (void *)n;
	struct sched *s = arg;
	struct sched_entry *e;

	while ((e = peer->entries.head) != NULL) {
		SCHED_LIST_UNLINK(peer->entries, e, link);
		sched_rcpt_entry_free(s, e);
	}
	sched_core_release(s, peer, sizeof(*peer));
}

/* sched_rcpt_teardown - free every message, job, peer and entry in core */

void
sched_rcpt_teardown(struct sched *s)
{
	struct sched_entry *e;
	struct sched_msg *msg;
	struct sched_job *job;
	size_t i;

	while ((e = s->deferred.head) != NULL) {
		SCHED_LIST_UNLINK(s->deferred, e, link);
		sched_rcpt_entry_free(s, e);
	}
	for (i = 0; i < s->ntr; i++)
		htab_drain(&s->tr[i]->peers, sched_rcpt_drop_peer, s);
	while ((msg = s->msgs.head) != NULL) {
		while ((job = msg->jobs.head) != NULL) {
			SCHED_LIST_UNLINK(msg->jobs, job, mlink);
			sched_core_release(s, job, sizeof(*job));
		}
		SCHED_LIST_UNLINK(s->msgs, msg, link);
		sched_core_release(s, msg, sizeof(*msg));
	}
}
