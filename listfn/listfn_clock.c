/*
 * listfn_clock.c - the wall clock of the list functions: the days of
 * bounce counts and the times of disables and probes.
 *
 * A test build (make fault-runner, with MJQ_TEST_FAULTS, as
 * queuerun/test_fault.c) adds MJQ_TEST_CLOCK_OFFSET seconds from the
 * environment, so a test lives through days in seconds.  In every other
 * build this is time(NULL): no variable, option or setting reaches it.
 */
#include <stdlib.h>
#include <time.h>

#include "listfn_clock.h"

/* listfn_now - now, shifted in a test build only */
time_t
listfn_now(void)
{
	time_t now = time(NULL);
#ifdef MJQ_TEST_FAULTS
	const char *v = getenv("MJQ_TEST_CLOCK_OFFSET");

	if (v != NULL)
		now += (time_t)strtoll(v, NULL, 10);
#endif
	return now;
}
