/*
 * bounce_parse.h - the failed addresses a delivery report names
 * (bounce_parse.c): VERP, then the report's own formats
 * (bounce_read.h); and why each failed (bounce_class.h).
 */
#ifndef MJQ_BOUNCE_PARSE_H
#define MJQ_BOUNCE_PARSE_H

#include <stddef.h>

#include "bounce_found.h"

/* bounce_parse - what a message to list's owner at domain (text, len)
 * says failed */
void bounce_parse(const char *domain, const char *list, const char *text,
    size_t len, struct bounce_found *bf);

#endif
