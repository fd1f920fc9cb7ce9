/*
 * spool_generate.c - mail mjq makes itself (a bounce, an answer to a
 * request, a notice, a welcome): committed with its recipients already
 * in its state file, so it is never expanded, under owner/ of the given
 * tiers, named after its list (README, "Generated mail").
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spool_generate.h"
#include "spool_move.h"
#include "spool_path.h"
#include "spool_state.h"

/* spool_generate - commit text of kind ("dsn", "reply", ...) from the
 * envelope sender ("" the null sender) to the n rcpts; 0 done (its path
 * in final), -1 with errno */
int
spool_generate(const char *spool, const struct spool_generate_at *at,
    const char *kind, const char *sender, char *const *rcpts, size_t n,
    const char *text, size_t tlen, char *final, size_t finallen)
{
	struct spool_state_init init;
	struct spool_name name;
	char dir[PATH_MAX], *state = NULL;
	size_t slen;
	int r = -1;

	memset(&init, 0, sizeof(init));
	init.sender = sender;
	init.from = "";
	init.kind = kind;
	init.arrival = (long long)time(NULL);
	spool_msgid_of(&init.msgid, text, tlen);
	if (spool_state_format(&init, rcpts, n, &state, &slen) == 0 &&
	    spool_queue_dir(dir, sizeof(dir), spool, SPOOL_QUEUE,
		at->domain_prio, at->domain, at->list_prio,
		SPOOL_FN_OWNER) == 0 &&
	    spool_name_init(&name, time(NULL), getpid(),
		at->list[0] ? at->list : SPOOL_GLOBAL_LIST, NULL, NULL) == 0 &&
	    spool_move_generate(spool, dir, &name, state, slen, text, tlen,
		final, finallen) == 0)
		r = 0;
	free(state);
	return r;
}
