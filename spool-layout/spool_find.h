/*
 * spool_find.h - a message named by an operator (spool_find.c): its path
 * relative to the spool as mj_queuerun -l prints it, or its bare name.
 */
#ifndef MJQ_SPOOL_FIND_H
#define MJQ_SPOOL_FIND_H

#include <limits.h>

#include "spool_path.h"

struct spool_found {
	char path[PATH_MAX]; /* full path of the message */
	const char *top;     /* SPOOL_QUEUE, SPOOL_HOLD or SPOOL_BAD */
	enum spool_function function;
};

int spool_find(const char *spool, const char *arg, struct spool_found *f);

#endif
