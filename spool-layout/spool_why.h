/*
 * spool_why.h - the .<name>.why file beside a message (spool_why.c): why
 * it is in HOLD/ or BAD/, or, in QUEUE/, who released it.
 */
#ifndef MJQ_SPOOL_WHY_H
#define MJQ_SPOOL_WHY_H

#include <stddef.h>
#include <time.h>

#define SPOOL_WHY_MAX 1024

int spool_why_read(const char *msgpath, char *buf, size_t len, time_t *when);
int spool_why_remove(const char *msgpath);

#endif
