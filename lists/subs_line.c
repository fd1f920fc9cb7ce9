/*
 * subs_line.c - one line of <list dir>/subscribers, as every reader of
 * the file sees it (the walk of a post, listconf.c; an edit, subs_edit.c;
 * a mode, subs_mode.c):
 *
 *     alice@example.org
 *     bob@example.net digest          # a comment
 *     # a line of comment
 *
 * The address is the first word; a word ends at a blank.  A comment
 * begins with a '#' that begins a word (at the start of the line or
 * after a blank); a '#' inside a word is part of the word, and no stored
 * address holds one (name_addr_check), so "victim@a.test#@evil.test" is
 * read as that whole word, an invalid address, never as victim@a.test.
 */
#include <ctype.h>

#include "subs_line.h"

/* subs_line_len - the length of the line (len bytes, without its
 * newline) before its comment */
size_t
subs_line_len(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (line[i] == '#' &&
		    (i == 0 || isspace((unsigned char)line[i - 1])))
			return i;
	return len;
}

/* subs_line_addr - the length of the address the line names (its first
 * word before the comment), which begins at *start; 0 for none */
size_t
subs_line_addr(const char *line, size_t len, size_t *start)
{
	size_t i = 0, k;

	len = subs_line_len(line, len);
	while (i < len && isspace((unsigned char)line[i]))
		i++;
	for (k = i; k < len && !isspace((unsigned char)line[k]); k++)
		;
	*start = i;
	return k - i;
}
