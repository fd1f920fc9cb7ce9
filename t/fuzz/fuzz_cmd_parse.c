/*
 * fuzz_cmd_parse - libFuzzer target: the request command parser.
 *
 * Any bytes as a request message, with and without a default list: the
 * parser must return, never crash or overrun, and every command it
 * gives must be bounded and well formed (a list name that passes the
 * name check, a token of letters and digits).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lists.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_check - the invariants of a parsed set */
static void
fuzz_check(const struct cmd_set *set)
{
	const struct cmd *c;
	size_t i, k;

	if (set->n > CMD_MAX)
		abort();
	for (i = 0; i < set->n; i++) {
		c = &set->cmd[i];
		if (c->verb == CMD_UNKNOWN) {
			if (c->error == NULL || c->list[0] || c->token[0])
				abort();
			continue;
		}
		if (c->list[0] && name_check_list(c->list) != NULL)
			abort();
		for (k = 0; c->token[k]; k++)
			if (!isalnum((unsigned char)c->token[k]))
				abort();
		if (c->verb == CMD_CONFIRM && c->token[0] == '\0')
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cmd_set set;

	if (cmd_parse_message((const char *)data, size, "", "", &set) == 0)
		fuzz_check(&set);
	if (cmd_parse_message((const char *)data, size, "", "mylist", &set) ==
	    0)
		fuzz_check(&set);
	return 0;
}
