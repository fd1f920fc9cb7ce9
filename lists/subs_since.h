/*
 * subs_since.h - when mjq last added or removed each address of a list,
 * so that a one-click link is bound to the subscription it was made for.
 */
#ifndef MJQ_SUBS_SINCE_H
#define MJQ_SUBS_SINCE_H

#define SUBS_SINCE_SUFFIX ".since" /* beside the subscribers file */

long long subs_since_get(const char *subscribers, const char *addr);
int subs_since_note(
    const char *subscribers, const char *addr, long long now, long long keep);

#endif
