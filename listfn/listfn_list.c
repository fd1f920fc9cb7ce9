/*
 * listfn_list.c - the list a message is for: whether it can be read
 * now (a file system not mounted, a list removed on purpose), and its
 * configuration.
 */
#include <stdio.h>

#include "lists.h"
#include "listfn_aside.h"
#include "listfn_list.h"
#include "listfn_msg.h"
#include "log.h"

/* listfn_list_ready - 0 when m's list (its domain's directory for the
 * majordomo function) can be read now.  -1 (logged) when the lists
 * directory, the list's directory or its subscribers file is missing (a
 * file system not mounted yet, a restore in progress): what is read now
 * would be wrong, so the message waits untouched.  -2 when the list was
 * removed on purpose (LISTCONF_REMOVED_FILE): moved to BAD/ with the
 * reason. */
int
listfn_list_ready(struct listfn_env *env, struct listfn_msg *m)
{
	char err[512], why[PATH_MAX + 600];
	const char *list = m->function == SPOOL_FN_MAJORDOMO ? NULL : m->list;

	switch (listconf_presence(env->s, m->domain, list, err, sizeof(err))) {
	case LISTCONF_PRESENT:
		return 0;
	case LISTCONF_REMOVED:
		snprintf(why, sizeof(why), "list %s@%s was removed: %s",
		    m->list, m->domain, err);
		return listfn_aside(env, m, SPOOL_BAD, why);
	default:
		log_warnx("%s: list %s@%s cannot be read now (%s): deferred, "
			  "left untouched",
		    m->name, m->list, m->domain, err);
		return -1;
	}
}

/* listfn_list_conf - the config of m's list; -1 (logged) when it cannot
 * be read now (a broken config, or as listfn_list_ready), -2 when the
 * list was removed (moved to BAD/) */
int
listfn_list_conf(
    struct listfn_env *env, struct listfn_msg *m, struct listconf *lc)
{
	char err[512];
	int r;

	if ((r = listfn_list_ready(env, m)) != 0)
		return r;
	if (listconf_load(env->s, m->domain, m->list, lc, err, sizeof(err)) ==
	    -1) {
		log_warnx(
		    "%s: list %s@%s: %s", m->name, m->list, m->domain, err);
		return -1;
	}
	return 0;
}
