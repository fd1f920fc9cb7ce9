/*
 * rcpt_pool.c - the recipients the scheduler holds, by id.
 *
 * The scheduler knows a recipient by a 32-bit id; the runner keeps, for
 * each recipient read from a state file and not yet dealt with, its
 * address, its status field's offset and its status as read.  A record
 * lives from the refill that read it (dispatch.c) to the outcome that
 * wrote it (outcome.c), so the pool holds what the scheduler's recipient
 * limits let into core, never a whole list.  Freed ids are reused.
 */
#include <stdlib.h>
#include <string.h>

#include "qr_runner.h"
#include "rcpt_pool.h"

/* rcpt_pool_grow - room for more ids */
static int
rcpt_pool_grow(struct queuerun *q)
{
	size_t size = q->rtab_size ? q->rtab_size * 2 : 256, i;
	struct qr_rcpt **tab;
	uint32_t *fr;

	if (size > UINT32_MAX)
		return -1;
	if ((tab = reallocarray(q->rtab, size, sizeof(*tab))) == NULL)
		return -1;
	q->rtab = tab;
	if ((fr = reallocarray(q->rfree, size, sizeof(*fr))) == NULL)
		return -1;
	q->rfree = fr;
	/* New ids go on the free stack highest first: low ids are used
	 * first, so the table stays dense. */
	for (i = size; i > q->rtab_size; i--) {
		q->rtab[i - 1] = NULL;
		q->rfree[q->nrfree++] = (uint32_t)(i - 1);
	}
	q->rtab_size = size;
	return 0;
}

/* rcpt_pool_add - a record for a recipient just read; its id in *id */
int
rcpt_pool_add(struct queuerun *q, const struct spool_rcpt *rc, uint32_t *id)
{
	struct qr_rcpt *r;
	size_t len = strlen(rc->addr);

	if (q->nrfree == 0 && rcpt_pool_grow(q) == -1)
		return -1;
	if ((r = malloc(sizeof(*r) + len + 1)) == NULL)
		return -1;
	r->off = rc->off;
	r->status = (unsigned char)rc->status;
	memcpy(r->addr, rc->addr, len + 1);
	*id = q->rfree[--q->nrfree];
	q->rtab[*id] = r;
	return 0;
}

/* rcpt_pool_get - the record of an id in use */
struct qr_rcpt *
rcpt_pool_get(const struct queuerun *q, uint32_t id)
{
	return q->rtab[id];
}

/* rcpt_pool_drop - the recipient is dealt with: free its record */
void
rcpt_pool_drop(struct queuerun *q, uint32_t id)
{
	free(q->rtab[id]);
	q->rtab[id] = NULL;
	q->rfree[q->nrfree++] = id;
}

/* rcpt_pool_free - every record and the tables */
void
rcpt_pool_free(struct queuerun *q)
{
	size_t i;

	for (i = 0; i < q->rtab_size; i++)
		free(q->rtab[i]);
	free(q->rtab);
	free(q->rfree);
	q->rtab = NULL;
	q->rfree = NULL;
	q->rtab_size = q->nrfree = 0;
}
