/*
 * htab.c - intrusive chained hash table (the scheduler's destinations and
 * peers, the runner's interned destinations).
 *
 * Lookups are O(1) on average, which keeps recipient assignment and
 * destination queries independent of the number of destinations.  The
 * table doubles when it is full, so its size stays within twice the number
 * of objects.
 */
#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "htab.h"

/* htab_init - empty table; memory is charged to *mem */

void
htab_init(struct htab *h, size_t *mem)
{
	h->tab = NULL;
	h->size = 0;
	h->used = 0;
	h->mem = mem;
}

/* htab_free - release the bucket array (not the nodes) */

void
htab_free(struct htab *h)
{
	*h->mem -= h->size * sizeof(*h->tab);
	free(h->tab);
	h->tab = NULL;
	h->size = h->used = 0;
}

/* htab_find - the node with this hash for which eq() holds */

struct htab_node *
htab_find(const struct htab *h, uint64_t hash, htab_eq eq, const void *key)
{
	struct htab_node *n;

	if (h->size == 0)
		return NULL;
	for (n = h->tab[hash & (h->size - 1)]; n != NULL; n = n->next)
		if (n->hash == hash && eq(n, key))
			return n;
	return NULL;
}

/* htab_grow - double the bucket array and rehash */

static int
htab_grow(struct htab *h)
{
	size_t nsize = h->size ? h->size * 2 : 16, i;
	struct htab_node **ntab, *n, *next;

	if ((ntab = calloc(nsize, sizeof(*ntab))) == NULL)
		return -1;
	for (i = 0; i < h->size; i++) {
		for (n = h->tab[i]; n != NULL; n = next) {
			next = n->next;
			n->next = ntab[n->hash & (nsize - 1)];
			ntab[n->hash & (nsize - 1)] = n;
		}
	}
	*h->mem += (nsize - h->size) * sizeof(*ntab);
	free(h->tab);
	h->tab = ntab;
	h->size = nsize;
	return 0;
}

/* htab_insert - add a node whose hash is already set */

int
htab_insert(struct htab *h, struct htab_node *n)
{
	struct htab_node **b;

	if (h->used >= h->size && htab_grow(h) == -1)
		return -1;
	b = &h->tab[n->hash & (h->size - 1)];
	n->next = *b;
	*b = n;
	h->used++;
	return 0;
}

/* htab_remove - unlink a node that is in the table */

void
htab_remove(struct htab *h, struct htab_node *n)
{
	struct htab_node **pp;

	for (pp = &h->tab[n->hash & (h->size - 1)]; *pp != NULL;
	     pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			h->used--;
			return;
		}
	}
}

/* htab_walk - call fn for every node, table unchanged */

void
htab_walk(const struct htab *h, void (*fn)(const struct htab_node *, void *),
    void *arg)
{
	struct htab_node *n;
	size_t i;

	for (i = 0; i < h->size; i++)
		for (n = h->tab[i]; n != NULL; n = n->next)
			fn(n, arg);
}

/* htab_drain - hand every node to fn (which may free it), empty */

void
htab_drain(struct htab *h, void (*fn)(struct htab_node *, void *), void *arg)
{
	struct htab_node *n, *next;
	size_t i;

	for (i = 0; i < h->size; i++) {
		for (n = h->tab[i]; n != NULL; n = next) {
			next = n->next;
			fn(n, arg);
		}
		h->tab[i] = NULL;
	}
	h->used = 0;
	htab_free(h);
}

/* htab_mix - finalizer of splitmix64, spreads all bits */

static uint64_t
htab_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* htab_str - FNV-1a of a string, mixed */

uint64_t
htab_str(const char *s)
{
	return htab_mix(fnv1a_str(FNV1A_BASIS, s));
}

/* htab_ptr2 - hash of a pair of object addresses */

uint64_t
htab_ptr2(const void *a, const void *b)
{
	return htab_mix(
	    (uint64_t)(uintptr_t)a * 31 ^ htab_mix((uint64_t)(uintptr_t)b));
}
