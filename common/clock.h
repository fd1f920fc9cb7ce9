/*
 * clock.h - time for deadlines, timers and time stamps, with no mail
 * knowledge: clock_ms (monotonic, for timeouts), clock_now (the wall
 * clock, for what is compared with file times).
 */
#ifndef MJQ_CLOCK_H
#define MJQ_CLOCK_H

/* clock_ms - milliseconds of CLOCK_MONOTONIC */
long long clock_ms(void);
/* clock_now - wall-clock seconds, with fractions (CLOCK_REALTIME) */
double clock_now(void);

#endif
