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
 * Only the members that can reach the destination take part: a session
 * from an IPv4 address reaches only a host's IPv4 addresses.  The
 * families of a nexthop are known at once for an address literal
 * ("[192.0.2.1]"), else from the first delivery to it: the worker that
 * finds the host has none of its source's family asks for another
 * member of the same pool (source_pick_other, from any worker thread,
 * so the state is under a mutex) and the answer is remembered for the
 * nexthop.  Each set of families has credits of its own, so among the
 * members of an IPv4-only destination the weights hold exactly as among
 * all of them.
 *
 * At the start every address of every pool is bound once (port 0, then
 * closed): an address this host cannot bind (not configured, a typo) is
 * logged and left out of its pools; a pool left with none keeps its
 * recipients waiting, logged once, and never sends them from another
 * address.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <pthread.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "log.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "source_pick.h"

#define SOURCE_PICK_SETS 4 /* families: 0 (all), V4, V6, V4|V6 */

/* A nexthop whose families a delivery found. */
struct source_pick_host {
	struct htab_node hnode; /* first */
	unsigned families;
	char name[];
};

/* A pool, as a worker's source_for knows it. */
struct source_pick_pool {
	struct source_pick *sp;
	size_t k;
};

struct source_pick {
	const struct delivery_sources *ds;
	pthread_mutex_t mu;
	unsigned char *usable; /* per source: it could be bound */
	long **credit;	       /* per pool, per family set, per member */
	unsigned char *told;   /* per pool: "none usable" logged */
	struct source_pick_pool *pools;
	struct htab hosts; /* struct source_pick_host by nexthop */
	size_t mem;
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
	sp->ds = ds;
	htab_init(&sp->hosts, &sp->mem);
	if ((errno = pthread_mutex_init(&sp->mu, NULL)) != 0) {
		free(sp);
		q->srcpick = NULL;
		return -1;
	}
	if ((sp->usable = calloc(ds->nsrc, 1)) == NULL ||
	    (sp->told = calloc(ds->npool, 1)) == NULL ||
	    (sp->pools = calloc(ds->npool, sizeof(*sp->pools))) == NULL ||
	    (sp->credit = calloc(ds->npool, sizeof(*sp->credit))) == NULL)
		return -1;
	for (i = 0; i < ds->npool; i++) {
		sp->pools[i].sp = sp;
		sp->pools[i].k = i;
		if ((sp->credit[i] = calloc(ds->pool[i].n * SOURCE_PICK_SETS,
			 sizeof(*sp->credit[i]))) == NULL)
			return -1;
	}
	source_pick_probe(ds, sp);
	return 0;
}

/* source_pick_family - the family of source s as a set */
static unsigned
source_pick_family(const struct delivery_source *s)
{
	return s->sa.ss_family == AF_INET6 ? DELIVER_FAMILY_V6
					   : DELIVER_FAMILY_V4;
}

/* source_pick_host_eq - htab_find's test */
static int
source_pick_host_eq(const struct htab_node *n, const void *key)
{
	return strcmp(((const struct source_pick_host *)n)->name, key) == 0;
}

/* source_pick_families - what is known of nexthop's families: an
 * address literal's, else what a delivery found; 0 nothing.  Under mu. */
static unsigned
source_pick_families(const struct source_pick *sp, const char *nexthop)
{
	const struct source_pick_host *h;
	char lit[64];
	const char *end;
	unsigned char a[16];

	if (nexthop[0] == '[' && (end = strchr(nexthop, ']')) != NULL &&
	    (size_t)(end - nexthop) < sizeof(lit)) {
		memcpy(lit, nexthop + 1, (size_t)(end - nexthop - 1));
		lit[end - nexthop - 1] = '\0';
		if (inet_pton(AF_INET, lit, a) == 1)
			return DELIVER_FAMILY_V4;
		if (inet_pton(AF_INET6, lit, a) == 1)
			return DELIVER_FAMILY_V6;
	}
	h = (const struct source_pick_host *)htab_find(
	    &sp->hosts, htab_str(nexthop), source_pick_host_eq, nexthop);
	return h != NULL ? h->families : 0;
}

/* source_pick_learn - remember nexthop's families (under mu); a failure
 * to remember costs only a question from the next worker */
static void
source_pick_learn(struct source_pick *sp, const char *nexthop, unsigned fam)
{
	struct source_pick_host *h;
	size_t len = strlen(nexthop);

	if ((h = (struct source_pick_host *)htab_find(&sp->hosts,
		 htab_str(nexthop), source_pick_host_eq, nexthop)) != NULL) {
		h->families = fam;
		return;
	}
	if ((h = calloc(1, sizeof(*h) + len + 1)) == NULL)
		return;
	memcpy(h->name, nexthop, len + 1);
	h->families = fam;
	h->hnode.hash = htab_str(nexthop);
	if (htab_insert(&sp->hosts, &h->hnode) == -1)
		free(h);
}

/* source_pick_rr - one smooth weighted round robin step in pool k
 * among the usable members of a family in fam (0: any), with that set's
 * credits; -1 when no member is.  Under mu. */
static long
source_pick_rr(struct source_pick *sp, size_t k, unsigned fam)
{
	const struct delivery_pool *pl = &sp->ds->pool[k];
	const struct delivery_source *s;
	long total = 0, best = -1, *credit;
	size_t i;

	if (fam == (DELIVER_FAMILY_V4 | DELIVER_FAMILY_V6))
		fam = 0;
	credit = sp->credit[k] + pl->n * fam;
	for (i = 0; i < pl->n; i++) {
		s = &sp->ds->src[pl->m[i].src];
		if (!sp->usable[pl->m[i].src] ||
		    (fam != 0 && !(source_pick_family(s) & fam)))
			continue;
		credit[i] += pl->m[i].weight;
		total += pl->m[i].weight;
		if (best == -1 || credit[i] > credit[best])
			best = (long)i;
	}
	if (best != -1)
		credit[best] -= total;
	return best;
}

/* source_pick_other - a worker's question (deliver_batch.h source_for):
 * nexthop has addresses of the families fam only; another member of
 * the pool ctx of one of them, or NULL */
static const struct delivery_source *
source_pick_other(void *ctx, const char *nexthop, unsigned fam)
{
	struct source_pick_pool *pp = ctx;
	struct source_pick *sp = pp->sp;
	long i;

	pthread_mutex_lock(&sp->mu);
	source_pick_learn(sp, nexthop, fam);
	i = source_pick_rr(sp, pp->k, fam);
	pthread_mutex_unlock(&sp->mu);
	return i == -1 ? NULL : &sp->ds->src[sp->ds->pool[pp->k].m[i].src];
}

/* source_pick - the pool, then an address in it that can reach the
 * nexthop as far as is known */
const struct delivery_source *
source_pick(struct queuerun *q, const struct qr_msg *m, const char *domain,
    const char *nexthop, struct source_pick_ask *ask, int *wait)
{
	const struct delivery_sources *ds = &q->dc->sources;
	struct source_pick *sp = q->srcpick;
	unsigned fam;
	long k, i;

	*wait = 0;
	if (sp == NULL || (k = delivery_pool_find(
			       ds, m->lm.list, m->lm.domain, domain)) == -1)
		return NULL;
	pthread_mutex_lock(&sp->mu);
	fam = source_pick_families(sp, nexthop);
	/* None of a known family usable: as if nothing were known, the
	 * worker then says what the host lacks. */
	if ((i = source_pick_rr(sp, (size_t)k, fam)) == -1 && fam != 0)
		i = source_pick_rr(sp, (size_t)k, 0);
	pthread_mutex_unlock(&sp->mu);
	ask->fn = source_pick_other;
	ask->ctx = &sp->pools[k];
	if (i == -1) {
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

/* source_pick_host_free - htab_drain's: free one remembered nexthop */
static void
source_pick_host_free(struct htab_node *n, void *arg)
{
	(void)arg;
	free(n);
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
	htab_drain(&sp->hosts, source_pick_host_free, NULL);
	htab_free(&sp->hosts);
	(void)pthread_mutex_destroy(&sp->mu);
	free(sp->credit);
	free(sp->pools);
	free(sp->usable);
	free(sp->told);
	free(sp);
	q->srcpick = NULL;
}
