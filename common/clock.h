/*
 * clock.h - time for deadlines and timers, and durations for people,
 * with no mail knowledge.
 */
#ifndef MJQ_CLOCK_H
#define MJQ_CLOCK_H

#include <stddef.h>

long long clock_ms(void);
void clock_span(long long secs, char *buf, size_t len);

#endif
