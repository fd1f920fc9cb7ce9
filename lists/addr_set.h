/*
 * addr_set.h - have we seen this address before (addr_set.c).
 */
#ifndef MJQ_ADDR_SET_H
#define MJQ_ADDR_SET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct addr_set {
	uint64_t *slot; /* tag << 40 | (where + 1); 0 = empty */
	size_t size, n;
};

/* same(arg, where, addr): 1 when the address kept at where is addr. */
typedef int (*addr_set_same_fn)(void *arg, off_t where, const char *addr);

int addr_set_seen(struct addr_set *s, const char *addr, off_t where,
    addr_set_same_fn same, void *arg);
int addr_set_find(const struct addr_set *s, const char *addr,
    addr_set_same_fn same, void *arg);
void addr_set_free(struct addr_set *s);

#endif
