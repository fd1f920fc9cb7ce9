/*
 * sched_hash.c - intrusive chained hash table for destinations and peers.
 *
 * Lookups are O(1) on average, which keeps recipient assignment and
 * destination queries independent of the number of destinations.  The
 * table doubles when it is full, so its size stays within twice the number
 * of objects.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_hash.h"

/* sched_hash_init - empty table; memory is charged to *mem */

void
sched_hash_init(struct sched_hash *h, size_t *mem)
{
	h->tab = NULL;
	h->size = 0;
	h->used = 0;
	h->mem = mem;
}

/* sched_hash_free - release the bucket array (not the nodes) */

void
sched_hash_free(struct sched_hash *h)
{
	*h->mem -= h->size * sizeof(*h->tab);
	free(h->tab);
	h->tab = NULL;
	h->size = h->used = 0;
}

/* sched_hash_find - the node with this hash for which eq() holds */

struct sched_hnode *
sched_hash_find(const struct sched_hash *h, uint64_t hash, sched_hash_eq eq,
    const void *key)
{
	struct sched_hnode *n;

	if (h->size == 0)
		return NULL;
	for (n = h->tab[hash & (h->size - 1)]; n != NULL; n = n->next)
		if (n->hash == hash && eq(n, key))
			return n;
	return NULL;
}

/* sched_hash_grow - double the bucket array and rehash */

static int
sched_hash_grow(struct sched_hash *h)
{
	size_t nsize = h->size ? h->size * 2 : 16, i;
	struct sched_hnode **ntab, *n, *next;

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

/* sched_hash_insert - add a node whose hash is already set */

int
sched_hash_insert(struct sched_hash *h, struct sched_hnode *n)
{
	struct sched_hnode **b;

	if (h->used >= h->size && sched_hash_grow(h) == -1)
		return -1;
	b = &h->tab[n->hash & (h->size - 1)];
	n->next = *b;
	*b = n;
	h->used++;
	return 0;
}

/* sched_hash_remove - unlink a node that is in the table */

void
sched_hash_remove(struct sched_hash *h, struct sched_hnode *n)
{
	struct sched_hnode **pp;

	for (pp = &h->tab[n->hash & (h->size - 1)]; *pp != NULL;
	     pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			h->used--;
			return;
		}
	}
}

/* sched_hash_walk - call fn for every node, table unchanged */

void
sched_hash_walk(const struct sched_hash *h,
    void (*fn)(const struct sched_hnode *, void *), void *arg)
{
	struct sched_hnode *n;
	size_t i;

	for (i = 0; i < h->size; i++)
		for (n = h->tab[i]; n != NULL; n = n->next)
			fn(n, arg);
}

/* sched_hash_drain - hand every node to fn (which may free it), empty */

void
sched_hash_drain(
    struct sched_hash *h, void (*fn)(struct sched_hnode *, void *), void *arg)
{
	struct sched_hnode *n, *next;
	size_t i;

	for (i = 0; i < h->size; i++) {
		for (n = h->tab[i]; n != NULL; n = next) {
			next = n->next;
			fn(n, arg);
		}
		h->tab[i] = NULL;
	}
	h->used = 0;
	sched_hash_free(h);
}

/* sched_hash_mix - finalizer of splitmix64, spreads all bits */

static uint64_t
sched_hash_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* sched_hash_str - FNV-1a of a string, mixed */

uint64_t
sched_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return sched_hash_mix(h);
}

/* sched_hash_ptr2 - hash of a pair of object addresses */

uint64_t
sched_hash_ptr2(const void *a, const void *b)
{
	return sched_hash_mix((uint64_t)(uintptr_t)a * 31 ^
			      sched_hash_mix((uint64_t)(uintptr_t)b));
}
