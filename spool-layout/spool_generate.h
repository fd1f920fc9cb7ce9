/*
 * spool_generate.h - commit generated mail, its recipients already in
 * its state file (spool_generate.c).
 */
#ifndef MJQ_SPOOL_GENERATE_H
#define MJQ_SPOOL_GENERATE_H

#include <stddef.h>

/* Where generated mail goes: the tiers and list it is filed under. */
struct spool_generate_at {
	int domain_prio;
	const char *domain;
	int list_prio;
	const char *list; /* "" for mail of no list */
};

int spool_generate(const char *spool, const struct spool_generate_at *at,
    const char *kind, const char *sender, char *const *rcpts, size_t n,
    const char *text, size_t tlen, char *final, size_t finallen);

#endif
