/*
 * htab.h - intrusive chained hash table, with no mail knowledge.
 *
 * The node lives inside the object it indexes, so a lookup costs no
 * allocation and an object is in the table for as long as it exists.
 */
#ifndef MJQ_HTAB_H
#define MJQ_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab_node {
	struct htab_node *next;
	uint64_t hash;
};

struct htab {
	struct htab_node **tab;
	size_t size; /* power of two, or 0 before the first insert */
	size_t used;
	size_t *mem; /* byte counter charged with the table */
};

typedef int (*htab_eq)(const struct htab_node *, const void *key);

void htab_init(struct htab *, size_t *mem);
void htab_free(struct htab *);
struct htab_node *htab_find(
    const struct htab *, uint64_t hash, htab_eq, const void *key);
int htab_insert(struct htab *, struct htab_node *);
void htab_remove(struct htab *, struct htab_node *);
void htab_drain(
    struct htab *, void (*fn)(struct htab_node *, void *), void *arg);
void htab_walk(const struct htab *,
    void (*fn)(const struct htab_node *, void *), void *arg);
uint64_t htab_str(const char *);
uint64_t htab_ptr2(const void *, const void *);

#endif
