/*
 * subs_since.h - when mjq last added or removed each address of a list,
 * so that a one-click link is bound to the subscription it was made for.
 */
#ifndef MJQ_SUBS_SINCE_H
#define MJQ_SUBS_SINCE_H

#include <stdio.h>

#define SUBS_SINCE_SUFFIX ".since" /* beside the subscribers file */

long long subs_since_get(const char *subscribers, const char *addr);
int subs_since_note(
    const char *subscribers, const char *addr, long long now, long long keep);
/* subs_since_each_fn(arg, out, now): write "address now" lines for the
 * addresses whose membership changes; 0, or -1 */
typedef int subs_since_each_fn(void *arg, FILE *out, long long now);
/* subs_since_note_each - as subs_since_note for every address each
 * writes, in one rewrite (a bulk change); 0, or -1 with errno */
int subs_since_note_each(const char *subscribers, subs_since_each_fn *each,
    void *arg, long long now, long long keep);

#endif
