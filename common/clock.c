/*
 * clock.c - time for deadlines and timers, with no mail knowledge.
 *
 * Deadlines use the monotonic clock, so a step of the wall clock (NTP, an
 * administrator's date) neither fires nor starves a timeout.
 */
#include <time.h>

#include "clock.h"

/* clock_ms - milliseconds of CLOCK_MONOTONIC */
long long
clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
