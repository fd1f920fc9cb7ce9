/*
 * addr_set.c - have we seen this address before?  For reading a list's
 * subscribers once, in order, without keeping them in core.
 *
 * An open-addressing table of 8-byte slots: 24 bits of the address's
 * hash as a tag, and 40 bits of where the caller can find the address
 * again (its offset in the subscribers file, plus one; 0 is an
 * empty slot).  A slot whose tag matches is confirmed by the caller's
 * callback, which reads the address back, so the answer is exact; the
 * table is kept at most half full, so a million subscribers cost 16 MB,
 * not the addresses themselves.  A slot's home is its tag, so the table
 * can grow without the addresses; past 2^24 slots (8 million
 * subscribers) homes start to crowd and lookups slow down, still exact.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "addr_set.h"
#include "fnv.h"

/* The fuzz build makes tags tiny, so that every lookup meets slots of
 * other addresses with its tag and the confirmation is what decides. */
#ifndef ADDR_SET_TAG_BITS
#define ADDR_SET_TAG_BITS 24
#endif
#define ADDR_SET_WHERE_BITS 40
#define ADDR_SET_WHERE_MASK ((UINT64_C(1) << ADDR_SET_WHERE_BITS) - 1)
#define ADDR_SET_WHERE_MAX (ADDR_SET_WHERE_MASK - 1)

/* addr_set_tag - ADDR_SET_TAG_BITS of the FNV-1a hash of the address in lower
 * case, folded from all 64 */
static uint64_t
addr_set_tag(const char *addr)
{
	uint64_t h = FNV1A_BASIS;

	for (; *addr; addr++)
		h = fnv1a_byte(h, (unsigned char)tolower((unsigned char)*addr));
	return (h ^ (h >> 24) ^ (h >> 48)) &
	       ((UINT64_C(1) << ADDR_SET_TAG_BITS) - 1);
}

/* addr_set_home - where a tag's probe starts */
static size_t
addr_set_home(uint64_t tag, size_t size)
{
	return (size_t)tag & (size - 1);
}

/* addr_set_grow - double the table; each slot moves by its tag */
static int
addr_set_grow(struct addr_set *s)
{
	size_t size = s->size ? s->size * 2 : 1024, i, j;
	uint64_t *slot;

	if ((slot = calloc(size, sizeof(*slot))) == NULL)
		return -1;
	for (i = 0; i < s->size; i++) {
		if (s->slot[i] == 0)
			continue;
		j = addr_set_home(s->slot[i] >> ADDR_SET_WHERE_BITS, size);
		while (slot[j] != 0)
			j = (j + 1) & (size - 1);
		slot[j] = s->slot[i];
	}
	free(s->slot);
	s->slot = slot;
	s->size = size;
	return 0;
}

/* addr_set_probe - 1 when addr is in the set; else 0 and *j is the
 * empty slot where it would go */
static int
addr_set_probe(const struct addr_set *s, const char *addr, uint64_t tag,
    size_t *j, addr_set_same_fn same, void *arg)
{
	for (*j = addr_set_home(tag, s->size); s->slot[*j] != 0;
	     *j = (*j + 1) & (s->size - 1))
		if (s->slot[*j] >> ADDR_SET_WHERE_BITS == tag &&
		    same(arg, (off_t)(s->slot[*j] & ADDR_SET_WHERE_MASK) - 1,
			addr))
			return 1;
	return 0;
}

/* addr_set_find - 1 when addr (case-insensitively) is in the set, else
 * 0; the set is not changed */
int
addr_set_find(const struct addr_set *s, const char *addr, addr_set_same_fn same,
    void *arg)
{
	size_t j;

	return s->size > 0 &&
	       addr_set_probe(s, addr, addr_set_tag(addr), &j, same, arg);
}

/* addr_set_seen - 1 when addr (case-insensitively) is in the set
 * already; else it is added, to be found again at where, and 0; -1 on
 * an error of memory (ENOMEM) or of where (EFBIG) */
int
addr_set_seen(struct addr_set *s, const char *addr, off_t where,
    addr_set_same_fn same, void *arg)
{
	uint64_t tag = addr_set_tag(addr);
	size_t j;

	if (where < 0 || (uint64_t)where > ADDR_SET_WHERE_MAX) {
		errno = EFBIG;
		return -1;
	}
	if ((s->n + 1) * 2 > s->size && addr_set_grow(s) == -1)
		return -1;
	if (addr_set_probe(s, addr, tag, &j, same, arg))
		return 1;
	s->slot[j] = tag << ADDR_SET_WHERE_BITS | ((uint64_t)where + 1);
	s->n++;
	return 0;
}

/* addr_set_free - the table */
void
addr_set_free(struct addr_set *s)
{
	free(s->slot);
	s->slot = NULL;
	s->size = s->n = 0;
}
