/*
 * members_welcome.h - the welcome mjq-members sends the addresses it
 * added, the goodbye to those it removed (members_welcome.c).
 */
#ifndef MJQ_MEMBERS_WELCOME_H
#define MJQ_MEMBERS_WELCOME_H

#include <stdio.h>

#include "settings.h"

#define MEMBERS_WELCOME_BATCH 1000 /* recipients of one welcome message */
#define MEMBERS_WELCOME_MAX 65536  /* bytes of a list's welcome file */

/* members_welcome - the welcome (bye: the goodbye) to each address of
 * who, one a line; how many sent in *sent; 0, or -1 with errno */
int members_welcome(const struct settings *s, const char *domain,
    const char *list, int bye, FILE *who, size_t *sent);

#endif
