/*
 * fnv.h - the one FNV-1a hash of mjq (64 bits), for hash tables, the
 * shared destination table's index and a message's identity in its state
 * file.  Not a cryptographic hash: it spreads keys, it does not resist
 * an attacker.
 */
#ifndef MJQ_FNV_H
#define MJQ_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_BASIS UINT64_C(14695981039346656037)
#define FNV1A_PRIME UINT64_C(1099511628211)

/* fnv1a_byte - one more byte into h */
static inline uint64_t
fnv1a_byte(uint64_t h, unsigned char c)
{
	return (h ^ c) * FNV1A_PRIME;
}

uint64_t fnv1a(uint64_t h, const void *data, size_t len);
uint64_t fnv1a_str(uint64_t h, const char *s);

#endif
