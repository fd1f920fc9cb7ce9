/*
 * mj_cmdparse - print the commands cmd_parse finds in a message, for the
 * tests of the parser (t/700-request.bats).
 *
 *   mj_cmdparse [-l list] [-s suffix] < message
 *
 * One line per command: the verb and its arguments, or "error: why:
 * line" for a line that is not a command; "truncated" last when the
 * parser stopped early.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lists.h"

int
main(int argc, char **argv)
{
	const char *list = "", *suffix = "";
	struct cmd_set *set;
	const struct cmd *c;
	char *text = NULL, why[256];
	size_t len = 0, cap = 0, i;
	ssize_t n;
	int ch;

	while ((ch = getopt(argc, argv, "l:s:")) != -1) {
		switch (ch) {
		case 'l':
			list = optarg;
			break;
		case 's':
			suffix = optarg;
			break;
		default:
			fprintf(stderr, "usage: mj_cmdparse [-l list] "
					"[-s suffix] < message\n");
			return 64;
		}
	}
	for (;;) {
		if (len == cap &&
		    (text = realloc(text, cap = cap ? cap * 2 : 4096)) == NULL)
			err(1, "realloc");
		if ((n = read(0, text + len, cap - len)) <= 0)
			break;
		len += (size_t)n;
	}
	if (n == -1)
		err(1, "read");
	if ((set = malloc(sizeof(*set))) == NULL ||
	    cmd_parse_message(text, len, suffix, list, set) == -1)
		err(1, "cmd_parse_message");
	for (i = 0; i < set->n; i++) {
		c = &set->cmd[i];
		if (c->verb == CMD_UNKNOWN || c->verb == CMD_SKIPPED) {
			printf("%s: %s: %s\n",
			    c->verb == CMD_SKIPPED ? "skipped" : "error",
			    cmd_parse_error(c, why, sizeof(why)), c->line);
			continue;
		}
		printf("%s", cmd_parse_verb_name(c->verb));
		if (c->list[0])
			printf(" list=%s", c->list);
		if (c->addr[0])
			printf(" addr=%s", c->addr);
		if (c->token[0])
			printf(" token=%s", c->token);
		if (c->verb == CMD_SET)
			printf(" mode=%s", subs_mode_name(c->mode));
		printf("\n");
	}
	if (set->truncated)
		printf("truncated\n");
	free(set);
	free(text);
	return 0;
}
