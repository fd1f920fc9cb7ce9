/*
 * posting_conf.c - the words of [list] posting and nonmember_action: the
 * parsers listconf.c's table calls, and a policy's name for the reasons
 * posting.c gives.  Below both, so the table need not call up into the
 * policy that reads it.
 */
#include <stdio.h>
#include <strings.h>

#include "posting_conf.h"

static const char *const posting_conf_policies[] = {
    [POSTING_OPEN] = "open",
    [POSTING_SUBSCRIBERS] = "subscribers",
    [POSTING_MODERATED] = "moderated",
    [POSTING_OWNERS] = "owners",
};

static const char *const posting_conf_actions[] = {
    [POSTING_ACCEPT] = "accept",
    [POSTING_HOLD] = "hold",
    [POSTING_REJECT] = "reject",
    [POSTING_DISCARD] = "discard",
};

/* posting_conf_lookup - the index of text in names (from first), or -1 */
static int
posting_conf_lookup(
    const char *const *names, int first, int n, const char *text)
{
	int i;

	for (i = first; i < n; i++)
		if (strcasecmp(names[i], text) == 0)
			return i;
	return -1;
}

/* posting_conf_policy - CONF_FUNC for [list] posting */
int
posting_conf_policy(const char *text, void *var, char *err, size_t errlen)
{
	int v = posting_conf_lookup(posting_conf_policies, 0, 4, text);

	if (v == -1) {
		snprintf(err, errlen,
		    "'%s' is not open, subscribers, moderated or owners", text);
		return -1;
	}
	*(int *)var = v;
	return 0;
}

/* posting_conf_action - CONF_FUNC for [list] nonmember_action */
int
posting_conf_action(const char *text, void *var, char *err, size_t errlen)
{
	int v =
	    posting_conf_lookup(posting_conf_actions, POSTING_HOLD, 4, text);

	if (v == -1) {
		snprintf(
		    err, errlen, "'%s' is not hold, reject or discard", text);
		return -1;
	}
	*(int *)var = v;
	return 0;
}

/* posting_conf_name - the word of a posting policy */
const char *
posting_conf_name(int policy)
{
	return policy >= 0 && policy < 4 ? posting_conf_policies[policy] : "?";
}
