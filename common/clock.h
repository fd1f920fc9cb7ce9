/*
 * clock.h - time for deadlines and timers, with no mail knowledge.
 */
#ifndef MJQ_CLOCK_H
#define MJQ_CLOCK_H

long long clock_ms(void);

#endif
