/*
 * owner_mail.c - the owner function: mail to <list>-owner goes to the
 * list's owners, as an alias would forward it.
 *
 * The envelope sender stays the original one (a forward, not new mail),
 * so a failing owner address bounces to whoever wrote, never back to
 * <list>-owner, which could loop.
 */
#include <stdio.h>
#include <string.h>

#include "bounce.h"
#include "bounce_count.h"
#include "listfn_aside.h"
#include "listfn_list.h"
#include "listfn_state.h"
#include "owner_mail.h"
#include "lists.h"
#include "log.h"
#include "listfn_msg.h"

/* owner_mail - snapshot the owners into the state file */
int
owner_mail(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	struct spool_state_init init;
	char from[SPOOL_ADDR_MAX + 1];
	struct listconf lc;
	char **owners;
	size_t n;
	int r;

	if ((r = listfn_list_conf(env, m, &lc)) != 0)
		return r;
	if (listconf_split(lc.owners, &owners, &n) == -1)
		return -1;
	if (n == 0) {
		listconf_free_vec(owners, n);
		return listfn_aside(env, m, SPOOL_BAD,
		    "owner mail for a list without owners (set owners in "
		    "its config)");
	}
	/* Bounces of list mail are counted, not forwarded (bounce.c). */
	if ((r = bounce_process(env, m, text, len)) != 1) {
		listconf_free_vec(owners, n);
		return r;
	}
	header_return_path(text, len, from, sizeof(from));
	memset(&init, 0, sizeof(init));
	init.sender = from;
	init.from = from;
	init.kind = "forward";
	if (listfn_state(env, m, &init, owners, n) == -1)
		return -1;
	bounce_count_settled(env, m); /* a count made before the forward */
	log_info("%s: from=<%s>, owner of %s@%s, nrcpt=%zu", m->name, from,
	    m->list, m->domain, n);
	return 0;
}
