/*
 * subs_disabled.h - the subscribers whose delivery is disabled after
 * their bounces (subs_disabled.c): still on the list, with why and when,
 * and the state of the probes sent to them.
 */
#ifndef MJQ_SUBS_DISABLED_H
#define MJQ_SUBS_DISABLED_H

#include <stddef.h>

#include "lockedit.h"
#include "names.h"
#include "settings.h"

#define SUBS_DISABLED_SUFFIX ".disabled" /* beside the subscribers file */
#define SUBS_DISABLED_TOKEN 16		 /* hex digits of a probe's token */
#define SUBS_DISABLED_PROBE ".probe"	 /* + ".lock": the probes' lock */

struct subs_disabled {
	char addr[NAME_ADDR_MAX + 1];
	long long since;      /* when delivery was disabled */
	int probes;	      /* probes sent */
	long long probe_time; /* when the last one was sent, or 0 */
	char token[SUBS_DISABLED_TOKEN + 1]; /* the last one's, or "-" */
	int failed;			     /* the last probe bounced */
	char why[256];			     /* the rest of the line */
};

/* subs_disabled_hold - the list's probes' lock into le, held from
 * reading the lines to writing what was decided (lockedit_close drops
 * it); taken before the subscribers lock, never under it; 0 or -1 */
int subs_disabled_hold(const struct settings *s, const char *domain,
    const char *list, struct lockedit *le);
/* subs_disabled_set - write d's line (added or replaced) while d->addr
 * is subscribed, under the subscribers lock: 1 written, 0 not a
 * subscriber, -1 error */
int subs_disabled_set(const struct settings *s, const char *domain,
    const char *list, const struct subs_disabled *d);
/* subs_disabled_drop - addr enabled again: its line removed; 1 removed,
 * 0 there was none, -1 error.  subs_edit calls subs_disabled_drop_at when
 * it removes an address, under the lock it holds. */
int subs_disabled_drop(const struct settings *s, const char *domain,
    const char *list, const char *addr);
int subs_disabled_drop_at(const char *subscribers, const char *addr);
/* subs_disabled_load - every line (*v malloc'd, n of them, sorted by
 * address); 0 or -1 */
int subs_disabled_load(const struct settings *s, const char *domain,
    const char *list, struct subs_disabled **v, size_t *n);
/* subs_disabled_token - the line whose probe has token (exactly
 * SUBS_DISABLED_TOKEN hex digits, any case) into *d: 1 found, 0 none
 * (a malformed token finds none), -1 error */
int subs_disabled_token(const struct settings *s, const char *domain,
    const char *list, const char *token, struct subs_disabled *d);
/* subs_disabled_find - the line of addr in v, or NULL */
const struct subs_disabled *subs_disabled_find(
    const struct subs_disabled *v, size_t n, const char *addr);

#endif
