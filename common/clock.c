/*
 * clock.c - time for deadlines and timers, with no mail knowledge.
 *
 * clock_span writes a duration for people, as mj_queuerun -l and
 * mj_queueserv status show ages; clock_span_words the same in words, for
 * mail to people ("7 days", "12 hours", "1 second").
 *
 * Deadlines use the monotonic clock, so a step of the wall clock (NTP, an
 * administrator's date) neither fires nor starves a timeout.  The runner's
 * clock (clock_now) is the wall clock instead: it is compared with file
 * times (arrival, next try as mtime) and written into the state files.
 */
#include <stdio.h>
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

/* clock_span - a duration the short way: 42s, 5m, 3h, 2d (negative: 0s) */
void
clock_span(long long secs, char *buf, size_t len)
{
	if (secs < 0)
		secs = 0;
	if (secs < 120)
		snprintf(buf, len, "%llds", secs);
	else if (secs < 7200)
		snprintf(buf, len, "%lldm", secs / 60);
	else if (secs < 172800)
		snprintf(buf, len, "%lldh", secs / 3600);
	else
		snprintf(buf, len, "%lldd", secs / 86400);
}

/* clock_span_words - a duration in words, in whole units of the size
 * clock_span picks: "1 second", "90 minutes", "36 hours", "7 days" */
void
clock_span_words(long long secs, char *buf, size_t len)
{
	static const struct {
		long long below, unit;
		const char *name;
	} u[] = {{120, 1, "second"}, {7200, 60, "minute"},
	    {172800, 3600, "hour"}, {0, 86400, "day"}};
	size_t i;
	long long n;

	if (secs < 0)
		secs = 0;
	for (i = 0; u[i].below != 0 && secs >= u[i].below; i++)
		;
	n = secs / u[i].unit;
	snprintf(buf, len, "%lld %s%s", n, u[i].name, n == 1 ? "" : "s");
}

/* clock_now - wall-clock seconds, with fractions */
double
clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* clock_date - t as a Date: field's value (RFC 5322 3.3), in UTC; 0, or
 * -1 when it does not fit len */
int
clock_date(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%a, %d %b %Y %H:%M:%S +0000", &tm) == 0)
		return -1;
	return 0;
}
