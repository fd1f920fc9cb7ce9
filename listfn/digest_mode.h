/*
 * digest_mode.h - a reader's mode change into or out of the digests at
 * an issue boundary (digest_mode.c).
 */
#ifndef MJQ_DIGEST_MODE_H
#define MJQ_DIGEST_MODE_H

#include "lists.h"
#include "listfn_msg.h"

#define DIGEST_MODES_NONE (-2) /* the list has no digests: no lock */

/* digest_modes_hold - the modes lock of m's list (lc its config) taken
 * shared, for a post from its collection to the reading of its
 * recipients: its descriptor (close it), DIGEST_MODES_NONE, or -1 */
int digest_modes_hold(
    struct listfn_env *env, struct listfn_msg *m, const struct listconf *lc);
/* digest_mode_set - addr's mode on list set as subs_mode_set does (1
 * changed, 0 already so, 2 not subscribed, -1 error), a change into or
 * out of the digests at an issue boundary */
int digest_mode_set(struct listfn_env *env, struct listfn_msg *m,
    const char *list, const char *addr, enum subs_mode mode);

#endif
