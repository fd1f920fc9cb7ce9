/*
 * listfn_clock.h - the list functions' wall clock (listfn_clock.c).
 */
#ifndef MJQ_LISTFN_CLOCK_H
#define MJQ_LISTFN_CLOCK_H

#include <time.h>

/* listfn_now - seconds since the epoch, as the list functions see them */
time_t listfn_now(void);

#endif
