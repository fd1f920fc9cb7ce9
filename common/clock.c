/*
 * clock.c - time for deadlines and timers, with no mail knowledge.
 *
 * Deadlines use the monotonic clock, so a step of the wall clock (NTP, an
 * administrator's date) neither fires nor starves a timeout.  The runner's
 * clock (clock_now) is the wall clock instead: it is compared with file
 * times (arrival, next try as mtime) and written into the state files.
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

/* clock_now - wall-clock seconds, with fractions */
double
clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
