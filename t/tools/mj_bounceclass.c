/*
 * mj_bounceclass - judge replies with the bounce classifier
 * (lists/bounce_class.c): each line of standard input is a reply text,
 * as an SMTP server sent it (lines joined), a DSN's Diagnostic-Code or
 * an NDR's prose; print its class, one line each.  With -s STATUS the
 * status is given apart, as a DSN's Status field gives it.  With -r,
 * check the rules themselves (lists/bounce_rules.c): each row's example
 * must be decided by that row, with its class; print each that is not
 * and exit 1.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "bounce_rules.h"
#include "lists.h"

/* rules_text - each text rule's example decided by its own row */
static int
rules_text(const struct bounce_text_rule *rules, const char *table)
{
	const struct bounce_text_rule *r;
	char why[BOUNCE_WHY_MAX], want[BOUNCE_WHY_MAX];
	enum bounce_class c;
	int bad = 0;

	for (r = rules; r->text != NULL; r++) {
		c = bounce_class_judge(
		    r->example, strlen(r->example), NULL, why, sizeof(why));
		(void)snprintf(want, sizeof(want), "text \"%s\"", r->text);
		if (strcmp(why, want) != 0 || c != r->class) {
			printf("%s \"%s\": its example is %s by %s: %s\n",
			    table, r->text, bounce_class_name(c), why,
			    r->example);
			bad = 1;
		}
	}
	return bad;
}

/* rules_code - each code rule's example decided by a code */
static int
rules_code(const struct bounce_code_rule *rules, const char *table)
{
	const struct bounce_code_rule *r;
	char why[BOUNCE_WHY_MAX];
	enum bounce_class c;
	int bad = 0;

	for (r = rules; r->example != NULL; r++) {
		c = bounce_class_judge(
		    r->example, strlen(r->example), NULL, why, sizeof(why));
		if (strncmp(why, "code ", 5) != 0 || c != r->perm) {
			printf("%s %d.%d: its example is %s by %s: %s\n", table,
			    r->subject, r->detail, bounce_class_name(c), why,
			    r->example);
			bad = 1;
		}
	}
	return bad;
}

/* main - a class per line of input */
int
main(int argc, char **argv)
{
	const char *status = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int c;

	while ((c = getopt(argc, argv, "rs:")) != -1)
		if (c == 's')
			status = optarg;
		else if (c == 'r')
			return rules_code(bounce_first_codes, "first code") |
			       rules_code(bounce_code_rules, "code") |
			       rules_text(bounce_first_rules, "first") |
			       rules_text(bounce_text_rules, "text");
		else
			errx(EX_USAGE,
			    "usage: mj_bounceclass [-r] [-s status] <replies");
	while ((n = getline(&line, &cap, stdin)) != -1) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (printf("%s\n", bounce_class_name(bounce_class_reply(
				       line, (size_t)n, status))) < 0)
			err(EX_IOERR, "stdout");
	}
	free(line);
	if (ferror(stdin))
		err(EX_IOERR, "stdin");
	return fflush(stdout) == EOF ? EX_IOERR : 0;
}
