/*
 * sched_hash.h - intrusive chained hash table for destinations and peers.
 *
 * The node lives inside the object it indexes, so a lookup costs no
 * allocation and an object is in the table for as long as it exists.
 */
#ifndef SCHED_HASH_H
#define SCHED_HASH_H

#include <stddef.h>
#include <stdint.h>

struct sched_hnode {
	struct sched_hnode *next;
	uint64_t hash;
};

struct sched_hash {
	struct sched_hnode **tab;
	size_t size; /* power of two, or 0 before the first insert */
	size_t used;
	size_t *mem; /* byte counter charged with the table */
};

typedef int (*sched_hash_eq)(const struct sched_hnode *, const void *key);

void sched_hash_init(struct sched_hash *, size_t *mem);
void sched_hash_free(struct sched_hash *);
struct sched_hnode *sched_hash_find(
    const struct sched_hash *, uint64_t hash, sched_hash_eq, const void *key);
int sched_hash_insert(struct sched_hash *, struct sched_hnode *);
void sched_hash_remove(struct sched_hash *, struct sched_hnode *);
void sched_hash_drain(
    struct sched_hash *, void (*fn)(struct sched_hnode *, void *), void *arg);
void sched_hash_walk(const struct sched_hash *,
    void (*fn)(const struct sched_hnode *, void *), void *arg);
uint64_t sched_hash_str(const char *);
uint64_t sched_hash_ptr2(const void *, const void *);

#endif
