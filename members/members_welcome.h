/*
 * members_welcome.h - the welcome mjq-members sends the addresses it
 * added (members_welcome.c).
 */
#ifndef MJQ_MEMBERS_WELCOME_H
#define MJQ_MEMBERS_WELCOME_H

#include <stdio.h>

#include "settings.h"

#define MEMBERS_WELCOME_BATCH 1000 /* recipients of one welcome message */
#define MEMBERS_WELCOME_MAX 65536  /* bytes of a list's welcome file */

int members_welcome(const struct settings *s, const char *domain,
    const char *list, FILE *who, size_t *sent);

#endif
