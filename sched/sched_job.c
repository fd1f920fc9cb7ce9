/*
 * sched_job.c - per-transport jobs: the job lists, the preemption stack
 * relations and the recipient slot pool (SCHEDULER_README, "How the
 * preemption works", "How destination concurrency limits affect the
 * scheduling algorithm" and "Dealing with memory resource limits").
 *
 * A job is one message within one transport.  Each transport keeps two
 * lists of its jobs: the scheduler's job list, which preemption reorders,
 * and the by-time list, which never changes order and along which the
 * transport's recipient slots are handed from job to job.  A job preempted
 * by another is its stack parent; the parent/child relations only serve to
 * count delivery slots correctly when jobs complete out of order.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_core.h"
#include "sched_job.h"

/* sched_job_reset_cache - the best preemption candidate must be re-found */

static void
sched_job_reset_cache(struct sched_transport *t)
{
	t->cand_cache_current = NULL;
}

/* sched_job_create - an empty job for a message in a transport */

static struct sched_job *
sched_job_create(struct sched_msg *msg, struct sched_transport *t)
{
	struct sched_job *job;

	if ((job = sched_core_alloc(t->sched, sizeof(*job))) == NULL)
		return NULL;
	memset(job, 0, sizeof(*job));
	job->msg = msg;
	job->transport = t;
	job->stack_level = -1;
	SCHED_LIST_INIT(job->stack_children);
	SCHED_LIST_INIT(job->ready);
	SCHED_LIST_APPEND(msg->jobs, job, mlink);
	return job;
}

/* sched_job_link - put the job on both job lists by its enqueue time */

static void
sched_job_link(struct sched_job *job)
{
	struct sched_transport *t = job->transport;
	double queued = job->msg->queued;
	struct sched_job *prev, *next, *list_prev, *list_next, *unread,
	    *current;

	/*
	 * Walk both lists from the end to the first older job.  New jobs are
	 * the newest, so this stops at once; only revived jobs and jobs of a
	 * later recipient batch walk further.  Jobs with a stack parent are
	 * skipped so the job lands in time order among level-0 jobs, and the
	 * current and first-unread pointers are fixed up when passed.
	 */
	current = t->job_current;
	for (next = NULL, prev = t->job_list.tail; prev != NULL;
	     next = prev, prev = prev->tlink.prev) {
		if (prev->stack_parent == NULL && prev->msg->queued <= queued)
			break;
		if (current == prev)
			current = NULL;
	}
	list_prev = prev;
	list_next = next;
	unread = t->job_next_unread;
	for (next = NULL, prev = t->job_bytime.tail; prev != NULL;
	     next = prev, prev = prev->timelink.prev) {
		if (prev->msg->queued <= queued)
			break;
		if (unread == prev)
			unread = NULL;
	}
	job->stack_level = 0;
	SCHED_LIST_LINK(t->job_list, list_prev, job, list_next, tlink);
	SCHED_LIST_LINK(t->job_bytime, prev, job, next, timelink);
	if (current == NULL)
		t->job_current = job;
	/* The first unread job holds the pool: take it from a later one. */
	if (unread == NULL) {
		unread = t->job_next_unread;
		t->job_next_unread = job;
		if (unread != NULL)
			sched_job_move_limits(unread);
	}
	if (t->rcpt_unused > 0) {
		job->rcpt_limit += t->rcpt_unused;
		job->msg->rcpt_limit += t->rcpt_unused;
		t->rcpt_unused = 0;
	}
}

/* sched_job_obtain - the job of a message in a transport, ready for more */

struct sched_job *
sched_job_obtain(struct sched_msg *msg, struct sched_transport *t)
{
	struct sched_job *job;

	for (job = msg->jobs.head; job != NULL; job = job->mlink.next)
		if (job->transport == t)
			break;
	if (job == NULL && (job = sched_job_create(msg, t)) == NULL)
		return NULL;
	if (job->stack_level < 0)
		sched_job_link(job);
	/* New recipients may make it a candidate, or no longer a blocker. */
	sched_job_reset_cache(t);
	if (job->blocker) {
		job->blocker = 0;
		t->job_current = t->job_list.head;
	}
	return job;
}

/* sched_job_move_limits - hand unused recipient slots to the next job */

void
sched_job_move_limits(struct sched_job *job)
{
	struct sched_transport *t = job->transport;
	struct sched_msg *msg = job->msg;
	struct sched_job *next = t->job_next_unread;
	long unused, msg_unused;

	/* The by-time list keeps its order, so the cache walk is O(1)
	 * amortized. */
	if (job == next) {
		for (next = next->timelink.next; next != NULL;
		     next = next->timelink.next)
			if (next->msg->rcpt_unread > 0)
				break;
		t->job_next_unread = next;
	}
	unused = job->rcpt_limit - job->rcpt_count;
	msg_unused = msg->rcpt_limit - msg->rcpt_count;
	if (msg_unused < unused)
		unused = msg_unused;
	if (unused > 0) {
		job->rcpt_limit -= unused;
		msg->rcpt_limit -= unused;
		t->rcpt_unused += unused;
		if (next != NULL && (unused = t->rcpt_unused) > 0) {
			next->rcpt_limit += unused;
			next->msg->rcpt_limit += unused;
			t->rcpt_unused = 0;
		}
	}
}

/* sched_job_parent_gone - orphaned children go to the grandparent */

static void
sched_job_parent_gone(struct sched_job *job, struct sched_job *parent)
{
	struct sched_job *child;

	while ((child = job->stack_children.head) != NULL) {
		SCHED_LIST_UNLINK(job->stack_children, child, siblings);
		if (parent != NULL)
			SCHED_LIST_APPEND(
			    parent->stack_children, child, siblings);
		child->stack_parent = parent;
	}
}

/* sched_job_unlink - take the job off both job lists */

static void
sched_job_unlink(struct sched_job *job)
{
	struct sched_transport *t = job->transport;

	sched_job_parent_gone(job, NULL);
	if (t->job_current == job)
		t->job_current = job->tlink.next;
	if (job == t->cand_cache || job == t->cand_cache_current)
		sched_job_reset_cache(t);
	SCHED_LIST_UNLINK(t->job_list, job, tlink);
	SCHED_LIST_UNLINK(t->job_bytime, job, timelink);
	job->stack_level = -1;
}

/* sched_job_pop - leave the preemption stack, settling the slot count */

void
sched_job_pop(struct sched_job *job)
{
	struct sched_transport *t = job->transport;
	struct sched_job *parent;

	/*
	 * slots_used counts from minus the slots promised at preemption, so
	 * this gives back whatever the job did not use.  Only the original
	 * parent is credited: an adoptive one did not pay for it.
	 */
	if ((parent = job->stack_parent) != NULL &&
	    job->stack_level == parent->stack_level + 1)
		parent->slots_available -= job->slots_used * t->p.slot_cost;
	if (parent != NULL) {
		SCHED_LIST_UNLINK(parent->stack_children, job, siblings);
		job->stack_parent = NULL;
	}
	sched_job_parent_gone(job, parent);
	job->stack_level = 0;
	sched_job_reset_cache(t);
}

/* sched_job_retire - off the job lists until more recipients arrive */

void
sched_job_retire(struct sched_job *job)
{
	if (job->stack_level > 0)
		sched_job_pop(job);
	sched_job_move_limits(job);
	sched_job_unlink(job);
}

/* sched_job_free - release a job that has no recipients left */

void
sched_job_free(struct sched_job *job)
{
	struct sched_msg *msg = job->msg;

	if (job->stack_level > 0)
		sched_job_pop(job);
	sched_job_move_limits(job);
	/* Slots the message could not vouch for go back to the pool too. */
	if (job->rcpt_limit > 0) {
		msg->rcpt_limit -= job->rcpt_limit;
		job->transport->rcpt_unused += job->rcpt_limit;
		job->rcpt_limit = 0;
	}
	if (job->stack_level >= 0)
		sched_job_unlink(job);
	SCHED_LIST_UNLINK(msg->jobs, job, mlink);
	sched_core_release(job->transport->sched, job, sizeof(*job));
}

/* sched_job_unblock - a peer became selectable: not a blocker any more */

void
sched_job_unblock(struct sched_job *job)
{
	if (job->blocker) {
		job->blocker = 0;
		sched_job_reset_cache(job->transport);
	}
}
