/*
 * spool_name.c - queue file names.
 *
 * The name carries what an operator wants from ls (when it came, which
 * process, which list, which command) and is unique within its directory
 * by the two letters that the committer bumps on EEXIST.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spool_name.h"

/* spool_name_init - the first candidate name for a new message */
int
spool_name_init(struct spool_name *n, time_t now, pid_t pid, const char *list,
    const char *sublist, const char *command)
{
	struct tm tm;

	memset(n, 0, sizeof(*n));
	if (localtime_r(&now, &tm) == NULL)
		return -1;
	n->hour = (char)('A' + tm.tm_hour);
	(void)strlcpy(n->uniq, "AA", sizeof(n->uniq));
	n->pid = (long)pid;
	if (strlcpy(n->list, list, sizeof(n->list)) >= sizeof(n->list) ||
	    strlcpy(n->sublist, sublist ? sublist : "", sizeof(n->sublist)) >=
		sizeof(n->sublist) ||
	    strlcpy(n->command, command ? command : "", sizeof(n->command)) >=
		sizeof(n->command)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* spool_name_next - bump the unique letters; -1 after ZZ */
int
spool_name_next(struct spool_name *n)
{
	if (n->uniq[1] < 'Z') {
		n->uniq[1]++;
		return 0;
	}
	if (n->uniq[0] < 'Z') {
		n->uniq[0]++;
		n->uniq[1] = 'A';
		return 0;
	}
	errno = EEXIST;
	return -1;
}

/* spool_name_format - the file name text */
int
spool_name_format(const struct spool_name *n, char *buf, size_t len)
{
	int r;

	r = snprintf(buf, len, "%c%s-%ld-%s%s%s%s%s", n->hour, n->uniq, n->pid,
	    n->list, *n->sublist ? ":" : "", n->sublist, *n->command ? "," : "",
	    n->command);
	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* spool_name_take - copy text up to a stop character, checking the name */
static const char *
spool_name_take(
    const char *p, const char *stops, char *out, size_t outlen, size_t maxlen)
{
	size_t n = strcspn(p, stops);

	if (n == 0 || n >= outlen)
		return NULL;
	memcpy(out, p, n);
	out[n] = '\0';
	if (name_check(out, maxlen) != NULL &&
	    strcmp(out, SPOOL_GLOBAL_LIST) != 0)
		return NULL;
	return p + n;
}

/* spool_name_parse - strict parse of a queue file name; -1 if not one */
int
spool_name_parse(const char *text, struct spool_name *n)
{
	const char *p = text;
	char *end;

	memset(n, 0, sizeof(*n));
	if (p[0] < 'A' || p[0] > 'X' || p[1] < 'A' || p[1] > 'Z' ||
	    p[2] < 'A' || p[2] > 'Z' || p[3] != '-')
		return -1;
	n->hour = p[0];
	n->uniq[0] = p[1];
	n->uniq[1] = p[2];
	p += 4;
	if (*p < '1' || *p > '9') /* no sign, no leading zero: one spelling */
		return -1;
	errno = 0;
	n->pid = strtol(p, &end, 10);
	if (errno != 0 || *end != '-' || n->pid <= 0)
		return -1;
	p = end + 1;
	if ((p = spool_name_take(
		 p, ":,", n->list, sizeof(n->list), NAME_LIST_MAX)) == NULL)
		return -1;
	if (*p == ':' && (p = spool_name_take(p + 1, ",", n->sublist,
			      sizeof(n->sublist), NAME_LIST_MAX)) == NULL)
		return -1;
	if (*p == ',' && (p = spool_name_take(p + 1, "", n->command,
			      sizeof(n->command), SPOOL_COMMAND_MAX)) == NULL)
		return -1;
	return *p == '\0' ? 0 : -1;
}
