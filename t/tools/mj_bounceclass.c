/*
 * mj_bounceclass - judge replies with the bounce classifier
 * (lists/bounce_class.c): each line of standard input is a reply text,
 * as an SMTP server sent it (lines joined), a DSN's Diagnostic-Code or
 * an NDR's prose; print its class, one line each.  With -s STATUS the
 * status is given apart, as a DSN's Status field gives it.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "lists.h"

/* main - a class per line of input */
int
main(int argc, char **argv)
{
	const char *status = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int c;

	while ((c = getopt(argc, argv, "s:")) != -1)
		if (c == 's')
			status = optarg;
		else
			errx(EX_USAGE,
			    "usage: mj_bounceclass [-s status] <replies");
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
