/*
 * dkim_copy.h - the DKIM signatures of a copy of a prepared text
 * (dkim_copy.c), from the delivery threads.
 */
#ifndef MJQ_DKIM_COPY_H
#define MJQ_DKIM_COPY_H

#include <stddef.h>

struct dkim_prep;

int dkim_copy_sign(const struct dkim_prep *p, const char *head, size_t headlen,
    char **sig, size_t *siglen, char *err, size_t errlen);

#endif
