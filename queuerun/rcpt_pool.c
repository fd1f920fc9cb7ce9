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

#include "rcpt_pool.h"

/* rcpt_pool_grow - room for more ids */
static int
rcpt_pool_grow(struct rcpt_pool *p)
{
	size_t size = p->size ? p->size * 2 : 256, i;
	struct qr_rcpt **tab;
	uint32_t *fr;

	if (size > UINT32_MAX)
		return -1;
	if ((tab = reallocarray(p->tab, size, sizeof(*tab))) == NULL)
		return -1;
	p->tab = tab;
	if ((fr = reallocarray(p->unused, size, sizeof(*fr))) == NULL)
		return -1;
	p->unused = fr;
	/* New ids go on the free stack highest first: low ids are used
	 * first, so the table stays dense. */
	for (i = size; i > p->size; i--) {
		p->tab[i - 1] = NULL;
		p->unused[p->nfree++] = (uint32_t)(i - 1);
	}
	p->size = size;
	return 0;
}

/* rcpt_pool_add - a record for a recipient just read; its id in *id */
int
rcpt_pool_add(struct rcpt_pool *p, const struct spool_rcpt *rc, uint32_t *id)
{
	struct qr_rcpt *r;
	size_t len = strlen(rc->addr);

	if (p->nfree == 0 && rcpt_pool_grow(p) == -1)
		return -1;
	if ((r = malloc(sizeof(*r) + len + 1)) == NULL)
		return -1;
	r->off = rc->off;
	r->status = (unsigned char)rc->status;
	memcpy(r->addr, rc->addr, len + 1);
	*id = p->unused[--p->nfree];
	p->tab[*id] = r;
	return 0;
}

/* rcpt_pool_get - the record of an id in use */
struct qr_rcpt *
rcpt_pool_get(const struct rcpt_pool *p, uint32_t id)
{
	return p->tab[id];
}

/* rcpt_pool_drop - the recipient is dealt with: free its record */
void
rcpt_pool_drop(struct rcpt_pool *p, uint32_t id)
{
	free(p->tab[id]);
	p->tab[id] = NULL;
	p->unused[p->nfree++] = id;
}

/* rcpt_pool_free - every record and the tables */
void
rcpt_pool_free(struct rcpt_pool *p)
{
	size_t i;

	for (i = 0; i < p->size; i++)
		free(p->tab[i]);
	free(p->tab);
	free(p->unused);
	p->tab = NULL;
	p->unused = NULL;
	p->size = p->nfree = 0;
}
