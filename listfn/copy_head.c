/*
 * copy_head.c - the header fields each recipient of a list's mail (a
 * post, a digest issue) gets for itself: on a list with one-click links
 * its own List-Unsubscribe and List-Unsubscribe-Post (lists/rcpt_head.c),
 * kept in m->head for text_sign.c to prepare the per-copy signing and
 * for the delivery threads to make.
 */
#include <stdio.h>

#include "copy_head.h"
#include "log.h"

/* copy_head - m's per-recipient fields as lc asks (none: m->head is
 * NULL); 0, or -1 (logged): m waits, never sent without the links the
 * list promises */
int
copy_head(
    struct listfn_env *env, struct listfn_msg *m, const struct listconf *lc)
{
	char err[PATH_MAX + 100];

	rcpt_head_free(m->head);
	if (rcpt_head_open(&m->head, env->ls, lc, m->list, m->domain, err,
		sizeof(err)) == -1) {
		log_warnx("%s: one-click unsubscribe links: %s: deferred",
		    m->name, err);
		return -1;
	}
	return 0;
}
