/*
 * source_pick.c - which local address a recipient's mail leaves from.
 *
 * The pool is the list's (source_pool_list), else the recipient
 * domain's (source_pool_map: domain, ".parent", "*"); without either,
 * no source: the kernel picks the address, as without pools at all.
 * Within the pool an address is picked by smooth weighted round robin
 * (nginx's upstream rule): each pick adds every usable member's weight
 * to its credit, takes the member with the most and takes the total
 * from it, so any run of total-weight picks gives each member exactly
 * its weight, spread out rather than in runs.  The credits are this
 * runner's, kept per pool member.
 *
 * At the start every address of every pool is bound once (port 0, then
 * closed): an address this host cannot bind (not configured, a typo) is
 * logged and left out of its pools; a pool left with none keeps its
 * recipients waiting, logged once, and never sends them from another
 * address.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "source_pick.h"

struct source_pick {
	unsigned char *usable; /* per source: it could be bound */
	long **credit;	       /* per pool, per member */
	unsigned char *told;   /* per pool: "none usable" logged */
};

/* source_pick_probe - bind each source once; the unusable logged */
static void
source_pick_probe(const struct delivery_sources *ds, struct source_pick *sp)
{
	char why[200];
	size_t i;

	for (i = 0; i < ds->nsrc; i++) {
		sp->usable[i] =
		    delivery_source_probe(&ds->src[i], why, sizeof(why)) == 0;
		if (!sp->usable[i])
			log_warnx("cannot bind source address %s: %s; it is "
				  "skipped in its pools",
			    ds->src[i].addr, why);
	}
}

/* source_pick_open - the state, and the probe */
int
source_pick_open(struct queuerun *q)
{
	const struct delivery_sources *ds = &q->dc->sources;
	struct source_pick *sp;
	size_t i;

	if (ds->npool == 0)
		return 0;
	if ((sp = calloc(1, sizeof(*sp))) == NULL)
		return -1;
	q->srcpick = sp;
	if ((sp->usable = calloc(ds->nsrc, 1)) == NULL ||
	    (sp->told = calloc(ds->npool, 1)) == NULL ||
	    (sp->credit = calloc(ds->npool, sizeof(*sp->credit))) == NULL)
		return -1;
	for (i = 0; i < ds->npool; i++)
		if ((sp->credit[i] = calloc(
			 ds->pool[i].n, sizeof(*sp->credit[i]))) == NULL)
			return -1;
	source_pick_probe(ds, sp);
	return 0;
}

/* source_pick_rr - one smooth weighted round robin step in pool k; -1
 * when no member is usable */
static long
source_pick_rr(
    const struct delivery_sources *ds, struct source_pick *sp, size_t k)
{
	const struct delivery_pool *pl = &ds->pool[k];
	long total = 0, best = -1;
	size_t i;

	for (i = 0; i < pl->n; i++) {
		if (!sp->usable[pl->m[i].src])
			continue;
		sp->credit[k][i] += pl->m[i].weight;
		total += pl->m[i].weight;
		if (best == -1 || sp->credit[k][i] > sp->credit[k][best])
			best = (long)i;
	}
	if (best != -1)
		sp->credit[k][best] -= total;
	return best;
}

/* source_pick - the pool, then an address in it */
const struct delivery_source *
source_pick(
    struct queuerun *q, const struct qr_msg *m, const char *domain, int *wait)
{
	const struct delivery_sources *ds = &q->dc->sources;
	struct source_pick *sp = q->srcpick;
	long k, i;

	*wait = 0;
	if (sp == NULL || (k = delivery_pool_find(
			       ds, m->lm.list, m->lm.domain, domain)) == -1)
		return NULL;
	if ((i = source_pick_rr(ds, sp, (size_t)k)) == -1) {
		if (!sp->told[k])
			log_warnx("source pool %s has no address this host "
				  "can bind; its recipients wait",
			    ds->pool[k].name);
		sp->told[k] = 1;
		*wait = 1;
		return NULL;
	}
	return &ds->src[ds->pool[k].m[i].src];
}

/* source_pick_close - free */
void
source_pick_close(struct queuerun *q)
{
	struct source_pick *sp = q->srcpick;
	size_t i;

	if (sp == NULL)
		return;
	if (sp->credit != NULL)
		for (i = 0; i < q->dc->sources.npool; i++)
			free(sp->credit[i]);
	free(sp->credit);
	free(sp->usable);
	free(sp->told);
	free(sp);
	q->srcpick = NULL;
}
