/*
 * spool_flush.h - make every deferred message of QUEUE/ due now.
 */
#ifndef MJQ_SPOOL_FLUSH_H
#define MJQ_SPOOL_FLUSH_H

#include <time.h>

int spool_flush(const char *spool, time_t now, long *count);

#endif
