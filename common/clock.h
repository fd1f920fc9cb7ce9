/*
 * clock.h - time for deadlines, timers and time stamps, with no mail
 * knowledge: clock_ms (monotonic, for timeouts), clock_now (the wall
 * clock, for what is compared with file times), clock_span and
 * clock_span_words (a duration for people).
 */
#ifndef MJQ_CLOCK_H
#define MJQ_CLOCK_H

#include <stddef.h>
#include <time.h>

/* clock_ms - milliseconds of CLOCK_MONOTONIC */
long long clock_ms(void);
/* clock_date - t as a Date: field's value, in UTC; 0 or -1 */
int clock_date(time_t t, char *buf, size_t len);
/* clock_now - wall-clock seconds, with fractions (CLOCK_REALTIME) */
double clock_now(void);
/* clock_span - a duration the short way: 42s, 5m, 3h, 2d */
void clock_span(long long secs, char *buf, size_t len);
/* clock_span_words - the same in words: 42 seconds, 5 minutes, 1 day */
void clock_span_words(long long secs, char *buf, size_t len);

#endif
