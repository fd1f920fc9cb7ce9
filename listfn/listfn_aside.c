/*
 * listfn_aside.c - a message moved aside, to BAD/ or HOLD/, with the
 * reason in its .why file: what a function does with mail it must not
 * or cannot handle now.
 */
#include <stdio.h>

#include "listfn_aside.h"
#include "listfn_msg.h"
#include "log.h"
#include "spool_move.h"

/* listfn_aside - move a message to BAD/ or HOLD/ with a reason: -2,
 * the function's "moved aside"; -1 when it could not be moved (logged),
 * and the message must be put off, never taken again at once */
int
listfn_aside(struct listfn_env *env, struct listfn_msg *m, const char *top,
    const char *why)
{
	char final[PATH_MAX], text[600];

	snprintf(text, sizeof(text), "%s\n", why);
	if (spool_move(env->s->spool_dir, m->path, top, text, final,
		sizeof(final)) == -1) {
		log_warn("%s: cannot move to %s (%s)", m->name, top, why);
		return -1;
	}
	log_notice("%s: moved to %s: %s", m->name, top, why);
	return -2;
}
