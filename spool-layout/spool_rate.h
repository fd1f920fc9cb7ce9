/*
 * spool_rate.h - replies counted per address: $spool/state/replies.
 *
 * One line per address that got a reply in the current period:
 * "<period start> <count> <address>", so cat shows who is being
 * answered how much.  Shared by every runner (lockedit.h's lock).
 */
#ifndef MJQ_SPOOL_RATE_H
#define MJQ_SPOOL_RATE_H

#include <time.h>

#define SPOOL_RATE_FILE "state/replies"

int spool_rate_take(const char *spool, const char *addr, long long limit,
    long long period, time_t now);

#endif
