/*
 * members_input.h - the addresses mjq-members is given, one a line, each
 * checked against the address grammar and the bans (members_input.c).
 */
#ifndef MJQ_MEMBERS_INPUT_H
#define MJQ_MEMBERS_INPUT_H

#include <stdio.h>

#include "lists.h"

struct members_input {
	FILE *fp;
	const char *name;	 /* for the diagnostics: a file, or stdin */
	const struct bans *bans; /* (add) banned addresses, or NULL */
	char *buf; /* the line read (getline's, freed by the caller) */
	size_t cap;
	unsigned long line;
	size_t invalid, banned;
};

int members_input_next(void *arg, char *addr, size_t size, unsigned long *line);

#endif
