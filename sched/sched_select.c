/*
 * sched_select.c - entry selection and job preemption for one transport
 * (SCHEDULER_README, "How the entry selection works" and "How the
 * preemption works"; Postfix's qmgr_job_entry_select()).
 *
 * The transport walks its job list from the current job; within a job it
 * round-robins over the peers whose destination can take a delivery.  A job
 * with entries but no such peer is a blocker: it is skipped, and excluded
 * from preemption, until one of its destinations has room again.  Before
 * each selection the current job may be preempted by the job with the best
 * wait/recipients score that fits into the delivery slots the current job
 * can still accumulate, once its accumulated slots (plus the loan, with the
 * discount) cover the candidate.
 *
 * Cost per selection: O(1) for the peer round-robin (saturated destinations
 * park their peers on the queue instead of being skipped each time); the
 * candidate search walks the job list from the current job but is cached
 * until the current job, the time or the job set changes, and stops early
 * once no later job can score better.
 */
#include <stdlib.h>

#include "sched_core.h"
#include "sched_job.h"
#include "sched_queue.h"
#include "sched_rcpt.h"
#include "sched_select.h"

/* sched_select_ready - a peer with waiting entries joins its job's round */

void
sched_select_ready(struct sched_peer *peer)
{
	if (peer->where == PEER_IDLE && peer->entries.head != NULL) {
		SCHED_LIST_APPEND(peer->job->ready, peer, rlink);
		peer->where = PEER_READY;
	}
}

/* sched_select_park - the peer's queue is full: wait on the queue */

static void
sched_select_park(struct sched_peer *peer)
{
	SCHED_LIST_UNLINK(peer->job->ready, peer, rlink);
	SCHED_LIST_APPEND(peer->queue->parked, peer, rlink);
	peer->where = PEER_PARKED;
}

/* sched_select_rr - next peer of the job whose queue takes a delivery */

static struct sched_peer *
sched_select_rr(struct sched_job *job, double now)
{
	struct sched_peer *peer;

	while ((peer = job->ready.head) != NULL) {
		if (sched_queue_accepts(peer->queue, now) &&
		    sched_queue_admit(peer->queue, now))
			return peer;
		/* A refusal that found the queue dead deferred the peer. */
		if (peer->where == PEER_READY)
			sched_select_park(peer);
	}
	return NULL;
}

/* sched_select_peer - a peer to deliver to, reading recipients if needed */

static struct sched_peer *
sched_select_peer(struct sched_job *job, double now)
{
	struct sched_msg *msg = job->msg;
	const struct sched_params *p = &job->transport->p;
	struct sched_peer *peer;

	/*
	 * Read more recipients early, when enough slots are free or enough
	 * time has passed, so a slow destination cannot starve the rest of a
	 * big message; but not one at a time, to keep the reads efficient.
	 */
	if (msg->rcpt_unread > 0 && !msg->refilling &&
	    (msg->rcpt_limit - msg->rcpt_count >= p->refill_limit ||
		(msg->rcpt_limit > msg->rcpt_count &&
		    now - msg->refill_time >= p->refill_delay)))
		sched_rcpt_refill(msg, now);
	if (SCHED_HAS_ENTRIES(job) &&
	    (peer = sched_select_rr(job, now)) != NULL)
		return peer;
	/* Last chance before giving up on this job for now. */
	if (msg->rcpt_unread > 0 && !msg->refilling &&
	    msg->rcpt_limit > msg->rcpt_count) {
		sched_rcpt_refill(msg, now);
		if (SCHED_HAS_ENTRIES(job))
			return sched_select_rr(job, now);
	}
	return NULL;
}

/* sched_select_take - hand out the peer's oldest entry, rotate the peer */

static struct sched_entry *
sched_select_take(struct sched_peer *peer, double now)
{
	struct sched_job *job = peer->job;
	struct sched_entry *e = peer->entries.head;

	SCHED_LIST_UNLINK(peer->entries, e, link);
	e->state = ENTRY_BUSY;
	job->selected_entries++;
	peer->queue->todo--;
	sched_queue_selected(peer->queue, now);
	/* Round-robin by destination: the peer goes to the back. */
	SCHED_LIST_UNLINK(job->ready, peer, rlink);
	peer->where = PEER_IDLE;
	sched_select_ready(peer);
	return e;
}

/* sched_select_count_slots - one more slot used and accumulated */

static void
sched_select_count_slots(struct sched_job *job)
{
	struct sched_transport *t = job->transport;

	job->slots_available++;
	job->slots_used++;
	/* Another job gained: it might now be a candidate after all. */
	if (job != t->cand_cache_current)
		t->cand_cache_current = NULL;
}

/* sched_select_candidate - best job to preempt the current one, or NULL */

static struct sched_job *
sched_select_candidate(struct sched_job *current, double now)
{
	struct sched_transport *t = current->transport;
	struct sched_job *job, *best = NULL;
	double score, best_score = 0, delay;
	long max_slots, needed, total;

	/* A cached "none" stays valid as time passes; a "some" may not. */
	if (t->cand_cache_current == current &&
	    (t->cand_cache_time == now || t->cand_cache == NULL))
		return t->cand_cache;
	/*
	 * Only jobs that fit into the slots the current job can still
	 * accumulate qualify; otherwise the smallest jobs would always win
	 * and a two-recipient message could wait for ever.
	 */
	max_slots = (SCHED_MIN_ENTRIES(current) - current->selected_entries +
			current->slots_available) /
		    t->p.slot_cost;
	if (max_slots > 0) {
		/*
		 * Walking forward from the current job skips its own stack
		 * children; stack parents are skipped explicitly, and the
		 * walk ends once a level-0 job (these are in time order) is
		 * too young to beat the best score.
		 */
		for (job = current->tlink.next; job != NULL;
		     job = job->tlink.next) {
			if (job->stack_children.head != NULL || job->blocker)
				continue;
			total = SCHED_MAX_ENTRIES(job);
			needed = total - job->selected_entries;
			delay = now - job->msg->queued + 1;
			if (needed > 0 && needed <= max_slots) {
				score = delay / total;
				if (score > best_score) {
					best_score = score;
					best = job;
				}
			}
			if (delay <= best_score && job->stack_level == 0)
				break;
		}
	}
	t->cand_cache = best;
	t->cand_cache_current = current;
	t->cand_cache_time = now;
	return best;
}

/* sched_select_preempt - let the best candidate jump the current job */

static struct sched_job *
sched_select_preempt(struct sched_job *current, double now)
{
	struct sched_transport *t = current->transport;
	const struct sched_params *p = &t->p;
	struct sched_job *job;
	long expected, rcpt_slots;

	if (current->slots_available <= 0 ||
	    SCHED_MAX_ENTRIES(current) < (long)p->min_slots * p->slot_cost)
		return current;
	if ((job = sched_select_candidate(current, now)) == NULL)
		return current;
	/*
	 * The loan and discount only let preemption happen earlier; the
	 * full price is still deducted below and must be earned back before
	 * the current job can be preempted again.
	 */
	expected = SCHED_MAX_ENTRIES(job) - job->selected_entries;
	if (current->slots_available / p->slot_cost + p->slot_loan <
	    expected * (100 - p->slot_discount) / 100.0)
		return current;
	if (job->stack_level > 0)
		sched_job_pop(job);
	SCHED_LIST_UNLINK(t->job_list, job, tlink);
	SCHED_LIST_LINK(t->job_list, current->tlink.prev, job, current, tlink);
	job->stack_parent = current;
	SCHED_LIST_APPEND(current->stack_children, job, siblings);
	job->stack_level = current->stack_level + 1;
	t->job_current = job;
	t->cand_cache_current = NULL;
	/*
	 * A job may be preempted by several at once, so the promised slots
	 * are taken now; sched_job_pop() settles the difference later, with
	 * slots_used counting from minus the promise.
	 */
	current->slots_available -= expected * p->slot_cost;
	job->slots_used = -expected;
	/* An unread preempting job gets half the extra recipient pool. */
	if (job->msg->rcpt_unread > 0) {
		rcpt_slots = (t->rcpt_per_stack + t->rcpt_unused + 1) / 2;
		job->rcpt_limit += rcpt_slots;
		job->msg->rcpt_limit += rcpt_slots;
		t->rcpt_unused -= rcpt_slots;
	}
	return job;
}

/* sched_select_entry - the next entry of this transport to deliver */

struct sched_entry *
sched_select_entry(struct sched_transport *t, double now)
{
	struct sched_job *job, *next;
	struct sched_peer *peer;
	struct sched_entry *e;

	if ((job = t->job_current) == NULL)
		return NULL;
	/* A slot cost below 2 would make every job preempt every other. */
	if (t->p.slot_cost >= 2)
		job = sched_select_preempt(job, now);
	for (; job != NULL; job = next) {
		next = job->tlink.next;
		if (job->blocker)
			continue;
		if ((peer = sched_select_peer(job, now)) != NULL) {
			e = sched_select_take(peer, now);
			sched_select_count_slots(job);
			t->job_current = job;
			if (!SCHED_HAS_ENTRIES(job) &&
			    job->msg->rcpt_unread == 0)
				sched_job_retire(job);
			return e;
		}
		if (SCHED_HAS_ENTRIES(job)) {
			/* All its destinations are full: skip it for now. */
			job->blocker = 1;
		} else {
			/* Stalled: nothing in core; revived by new recipients.
			 */
			sched_job_retire(job);
		}
	}
	t->job_current = NULL;
	return NULL;
}
