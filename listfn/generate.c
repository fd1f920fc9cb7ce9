/*
 * generate.c - mail the runner makes because of a message (a bounce, an
 * answer to a request, a notice): committed by spool_generate with its
 * one recipient already in its state file, from the null sender (a
 * bounce probe: its own VERP address), under owner/ of the causing
 * message's tiers, named after its list.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "generate.h"
#include "listfn_msg.h"
#include "spool_generate.h"

/* generate_commit - commit text (kind "dsn", "reply", ...) to one
 * recipient; 0 done (its path in final), -1 with errno */
int
generate_commit(struct listfn_env *env, const struct listfn_msg *m,
    const char *kind, const char *to, const char *text, size_t tlen,
    char *final, size_t finallen)
{
	return generate_commit_from(
	    env, m, kind, "", to, text, tlen, final, finallen);
}

/* generate_commit_from - the same from the envelope sender (a bounce
 * probe's VERP address, whose bounce must come back) */
int
generate_commit_from(struct listfn_env *env, const struct listfn_msg *m,
    const char *kind, const char *sender, const char *to, const char *text,
    size_t tlen, char *final, size_t finallen)
{
	struct spool_generate_at at = {
	    m->domain_prio, m->domain, m->list_prio, m->list};
	char *rcpt[1];

	rcpt[0] = (char *)to;
	return spool_generate(env->s->spool_dir, &at, kind, sender, rcpt, 1,
	    text, tlen, final, finallen);
}
