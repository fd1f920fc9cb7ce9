/*
 * subs_since.c - when mjq last added or removed each address of a list.
 *
 * <list dir>/subscribers.since holds one "address time" line per address
 * whose membership mjq changed (the time in seconds since the epoch),
 * written by subs_edit under the subscribers lock before the subscribers
 * file itself is replaced.  A one-click link issued before the last
 * change of its address belongs to an earlier subscription and removes
 * nobody, so an old link cannot unsubscribe someone who subscribed again
 * (request_one_click.c).
 *
 * Bounded: each write drops the lines older than keep (the token
 * lifetime and the queue's grace), since a link that old is refused
 * anyway; the file holds the changes of one lifetime at most.  An address
 * without a line (a list older than the file, a hand edit) keeps every
 * genuine link working, as before: the subscribers file is unchanged.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lockedit.h"
#include "subs_since.h"

/* subs_since_path - the file beside subscribers; -1 too long */
static int
subs_since_path(char *buf, size_t len, const char *subscribers)
{
	int n = snprintf(buf, len, "%s%s", subscribers, SUBS_SINCE_SUFFIX);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* subs_since_line - the time of a line (without its newline) that
 * names addr, or -1 when it names another address or is damaged */
static long long
subs_since_line(const char *line, size_t len, const char *addr)
{
	const char *sp = memchr(line, ' ', len);
	char num[24], *end;
	size_t nlen;
	long long t;

	if (sp == NULL)
		return -1;
	if (addr != NULL && ((size_t)(sp - line) != strlen(addr) ||
				strncasecmp(line, addr, strlen(addr)) != 0))
		return -1;
	if ((nlen = len - (size_t)(sp - line) - 1) == 0 || nlen >= sizeof(num))
		return -1;
	memcpy(num, sp + 1, nlen);
	num[nlen] = '\0';
	if (!isdigit((unsigned char)num[0]))
		return -1;
	errno = 0;
	t = strtoll(num, &end, 10);
	return errno != 0 || *end != '\0' ? -1 : t;
}

/* subs_since_get - when addr's membership last changed, 0 never (as far
 * as mjq knows), -1 the file cannot be read */
long long
subs_since_get(const char *subscribers, const char *addr)
{
	char path[PATH_MAX], *line = NULL;
	long long t, since = 0;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;

	if (subs_since_path(path, sizeof(path), subscribers) == -1)
		return -1;
	if ((fp = fopen(path, "re")) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		if ((t = subs_since_line(line, (size_t)n, addr)) > since)
			since = t;
	}
	free(line);
	if (ferror(fp)) {
		fclose(fp);
		return -1;
	}
	fclose(fp);
	return since;
}

/* What subs_since_note's walk is given: one address, or (addr NULL)
 * the lines each writes. */
struct since_note {
	const char *addr;
	long long now, keep;
	subs_since_each_fn *each;
	void *arg;
};

/* since_note_line - lockedit_lines' callback: the lines of other
 * addresses younger than keep stay, addr's (or each's) go to the end,
 * now.  A bulk change leaves an older line of an address it writes
 * again: subs_since_get takes the latest. */
static int
since_note_line(void *arg, FILE *fp, char *line, size_t len)
{
	const struct since_note *sn = arg;

	if (line == NULL) {
		if (sn->addr == NULL)
			return sn->each(sn->arg, fp, sn->now) == -1
				   ? -1
				   : LOCKEDIT_COMMIT;
		fprintf(fp, "%s %lld\n", sn->addr, sn->now);
		return LOCKEDIT_COMMIT;
	}
	if ((sn->addr == NULL || subs_since_line(line, len, sn->addr) == -1) &&
	    subs_since_line(line, len, NULL) >= sn->now - sn->keep)
		fprintf(fp, "%.*s\n", (int)len, line);
	return LOCKEDIT_DROP;
}

/* since_rewrite - the file beside subscribers rewritten as sn says */
static int
since_rewrite(const char *subscribers, struct since_note *sn)
{
	char path[PATH_MAX];

	if (subs_since_path(path, sizeof(path), subscribers) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return lockedit_rewrite(path, 0, since_note_line, sn);
}

/* subs_since_note - addr's membership changes now: its line says so,
 * lines older than now - keep go; 0, or -1 with errno */
int
subs_since_note(
    const char *subscribers, const char *addr, long long now, long long keep)
{
	struct since_note sn = {addr, now, keep, NULL, NULL};

	return since_rewrite(subscribers, &sn);
}

/* subs_since_note_each - every address each writes changes now */
int
subs_since_note_each(const char *subscribers, subs_since_each_fn *each,
    void *arg, long long now, long long keep)
{
	struct since_note sn = {NULL, now, keep, each, arg};

	return since_rewrite(subscribers, &sn);
}
