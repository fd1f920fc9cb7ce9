/*
 * generate.c - mail the runner makes because of a message (a bounce, an
 * answer to a request, a notice): committed with its one recipient
 * already in its state file, so it is never expanded, from the null
 * sender (a bounce probe: its own VERP address), under owner/ of the causing
 * message's tiers, named after its list (spool-layout/README, "Generated
 * mail").
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "generate.h"
#include "listfn_msg.h"
#include "spool_move.h"

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
	struct spool_state_init init;
	struct spool_name name;
	char dir[PATH_MAX], *state = NULL, *rcpt[1];
	size_t slen;
	int r = -1;

	memset(&init, 0, sizeof(init));
	init.sender = sender;
	init.from = "";
	init.kind = kind;
	init.arrival = (long long)time(NULL);
	rcpt[0] = (char *)to;
	spool_msgid_of(&init.msgid, text, tlen);
	if (spool_state_format(&init, rcpt, 1, &state, &slen) == 0 &&
	    spool_queue_dir(dir, sizeof(dir), env->s->spool_dir, SPOOL_QUEUE,
		m->domain_prio, m->domain, m->list_prio, SPOOL_FN_OWNER) == 0 &&
	    spool_name_init(&name, time(NULL), getpid(),
		m->list[0] ? m->list : SPOOL_GLOBAL_LIST, NULL, NULL) == 0 &&
	    spool_move_generate(env->s->spool_dir, dir, &name, state, slen,
		text, tlen, final, finallen) == 0)
		r = 0;
	free(state);
	return r;
}
