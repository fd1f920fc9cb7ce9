/*
 * content_filter_conf.c - the words of [list] filter_action, the parser
 * listconf.c's table calls: apart from the filter itself, so that a
 * program that reads list configs need not link libxml2.
 */
#include <stdio.h>
#include <strings.h>

#include "content_filter.h"

static const char *const content_filter_actions[] = {
    [CONTENT_REMOVE] = "remove",
    [CONTENT_HOLD] = "hold",
    [CONTENT_REJECT] = "reject",
};

/* content_filter_action_parse - CONF_FUNC for [list] filter_action */
int
content_filter_action_parse(
    const char *text, void *var, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcasecmp(text, content_filter_actions[i]) == 0) {
			*(int *)var = i;
			return 0;
		}
	snprintf(err, errlen, "'%s' is not remove, hold or reject", text);
	return -1;
}
