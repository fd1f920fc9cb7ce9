/*
 * members_input.c - the addresses mjq-members is given: one a line;
 * blanks around it, blank lines and lines starting with '#' are left
 * out.  A line that is not an address of the one grammar every part
 * keeps (name_addr_check, common/names.c) is reported with its number
 * and the grammar's reason; for add, so is a banned address (bans.c).
 * Neither stops the run: the other lines are still done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "members_input.h"
#include "names.h"

/* input_trim - the line without the blanks around it */
static char *
input_trim(char *line)
{
	size_t n;

	line += strspn(line, " \t");
	n = strcspn(line, "\r\n");
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	line[n] = '\0';
	return line;
}

/* input_ok - the address may be given on: 1; 0 reported */
static int
input_ok(struct members_input *mi, const char *a)
{
	const char *why, *pat;

	if ((why = name_addr_check(a)) != NULL) {
		fprintf(stderr, "mjq-members: %s line %lu: \"%.80s\": %s\n",
		    mi->name, mi->line, a, why);
		mi->invalid++;
		return 0;
	}
	if (mi->bans != NULL && (pat = bans_match(mi->bans, a)) != NULL) {
		fprintf(stderr,
		    "mjq-members: %s line %lu: <%s> is banned (%s)\n", mi->name,
		    mi->line, a, pat);
		mi->banned++;
		return 0;
	}
	return 1;
}

/* members_input_next - subs_bulk's next: the next good address and
 * its line; 1, 0 at the end, -1 on a read error */
int
members_input_next(void *arg, char *addr, size_t size, unsigned long *line)
{
	struct members_input *mi = arg;
	char *a;

	while (getline(&mi->buf, &mi->cap, mi->fp) != -1) {
		mi->line++;
		a = input_trim(mi->buf);
		if (a[0] == '\0' || a[0] == '#' || !input_ok(mi, a))
			continue;
		if (strlcpy(addr, a, size) >= size)
			continue; /* longer than the grammar allows: refused */
		*line = mi->line;
		return 1;
	}
	return ferror(mi->fp) ? -1 : 0;
}
