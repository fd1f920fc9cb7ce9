/*
 * bounce_probe.h - disable before removing (bounce_probe.c): what
 * happens to a subscriber whose bounce score reached the threshold.
 */
#ifndef MJQ_BOUNCE_PROBE_H
#define MJQ_BOUNCE_PROBE_H

#include <time.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* bounce_probe_disable - addr reached the threshold at score: disabled
 * (or, with bounce_probes = 0, removed), the owners told; 0 or -1 */
int bounce_probe_disable(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *addr, long long score);
/* bounce_probe_report - bf, mail back to the address of the probe with
 * bf->probe (autoreply: an automatic answer): the probe failed when bf
 * names its address failed, and after the last one the address is
 * removed; the class judged counted in judged; 0 done, 1 it names no
 * failure of the probe's address (forward it), -1 error */
int bounce_probe_report(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const struct bounce_found *bf, int autoreply,
    size_t judged[BOUNCE_CLASSES]);
/* bounce_probe_answer - the probe of list with token answered (how: in words
 * for the log): its address enabled again and copied into addr; 1 done,
 * 0 no probe out has the token (nothing changes), -1 error */
int bounce_probe_answer(struct listfn_env *env, struct listfn_msg *m,
    const char *list, const char *token, const char *how, char *addr,
    size_t addrlen);
/* bounce_probe_due - the list's disabled addresses at now, read and
 * written under the probes' lock: a probe sent where one is due,
 * re-enabled where the last one came back from nowhere within
 * bounce_probe_interval; 0 or -1 */
int bounce_probe_due(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, time_t now);

/* bounce_owners_tell - one notice to each owner of m's list (lc), its
 * text as printf makes it; 0 or -1 */
int bounce_owners_tell(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
