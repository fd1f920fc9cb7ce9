/*
 * spool_bounce_count.c - how many failures the runners judged per list
 * and class, and how many complaints they took: $spool/state/bounce-counts.
 *
 * Counters for the operator (mj_queueserv status, its Prometheus form):
 * they only grow.  The file holds one line per list and is rewritten
 * whole under lockedit's lock, once per judged batch or report.  The
 * lines are not precious: a crash that loses a rewrite loses the counts
 * of one batch, and a damaged line is dropped at the next rewrite.
 *
 * A complaint is counted once per message, though its message may be
 * processed again (its forward failed, or its runner died between the
 * count and the forward): the count and a mark of the message,
 *
 *     mark <message path>
 *
 * are one rewrite (K1), so a message found marked is not counted again;
 * the message's state file follows (K2), then the mark is taken away
 * (K3).  A mark whose message is gone from the spool (a crash between
 * K2 and K3, or the message moved aside) is dropped at any rewrite.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io_lines.h"
#include "spool_bounce_count.h"
#include "spool_edit.h"
#include "spool_path.h"

/* count_parse - a line into c; 0, or -1 when damaged */
static int
count_parse(const char *line, struct spool_bounce_count *c)
{
	memset(c, 0, sizeof(*c));
	return sscanf(line, "%254s %llu %llu %llu %llu %llu %llu", c->list,
		   &c->judged[0], &c->judged[1], &c->judged[2], &c->judged[3],
		   &c->judged[4], &c->complaints) == 7
		   ? 0
		   : -1;
}

/* count_write - one line */
static void
count_write(FILE *fp, const struct spool_bounce_count *c)
{
	fprintf(fp, "%s %llu %llu %llu %llu %llu %llu\n", c->list, c->judged[0],
	    c->judged[1], c->judged[2], c->judged[3], c->judged[4],
	    c->complaints);
}

#define COUNT_MARK "mark "

/* What a rewrite does: add's numbers into its list's line, and with a
 * message, its mark made (mark 1) or taken away (mark 0). */
struct count_edit {
	struct spool_bounce_count mine;
	const char *msg; /* the message's path, or NULL */
	int add;	 /* add mine's numbers */
	int mark;	 /* leave msg's mark (1) or take it away (0) */
	int found;	 /* msg's mark was there */
};

/* count_mark_line - a mark line: msg's own noted in found (kept when
 * the rewrite marks it), another kept while its message is in the
 * spool */
static int
count_mark_line(struct count_edit *ce, const char *path)
{
	struct stat sb;

	if (ce->msg != NULL && strcmp(path, ce->msg) == 0) {
		ce->found = 1;
		return ce->mark ? LOCKEDIT_KEEP : LOCKEDIT_DROP;
	}
	if (stat(path, &sb) == -1 && errno == ENOENT)
		return LOCKEDIT_DROP; /* its message is done with */
	return LOCKEDIT_KEEP;
}

/* count_end - lockedit_lines' end call: the list's line (and the new
 * mark) at the end, or the file left alone when nothing changes */
static int
count_end(struct count_edit *ce, FILE *fp)
{
	if (ce->msg != NULL && ce->found == ce->mark)
		return LOCKEDIT_LEAVE; /* counted before, or no mark to take */
	if (ce->add)
		count_write(fp, &ce->mine);
	if (ce->msg != NULL && ce->mark)
		fprintf(fp, COUNT_MARK "%s\n", ce->msg);
	return LOCKEDIT_COMMIT;
}

/* count_add_line - lockedit_lines' callback: the other lists' lines
 * stay, damaged ones go, the list's own is added into ce->mine, which
 * goes to the end; marks as count_mark_line says */
static int
count_add_line(void *arg, FILE *fp, char *line, size_t len)
{
	struct count_edit *ce = arg;
	struct spool_bounce_count old, *mine = &ce->mine;
	int i;

	(void)len;
	if (line == NULL)
		return count_end(ce, fp);
	if (strncmp(line, COUNT_MARK, strlen(COUNT_MARK)) == 0)
		return count_mark_line(ce, line + strlen(COUNT_MARK));
	if (count_parse(line, &old) == -1)
		return LOCKEDIT_DROP; /* damaged: dropped */
	if (!ce->add)
		return LOCKEDIT_KEEP;
	if (strcasecmp(old.list, mine->list) != 0)
		return LOCKEDIT_KEEP;
	for (i = 0; i < SPOOL_BOUNCE_CLASSES; i++)
		mine->judged[i] += old.judged[i];
	mine->complaints += old.complaints;
	return LOCKEDIT_DROP;
}

/* count_edit - one rewrite of the file as ce says; 1 written, 0 left
 * as it was (msg marked before), -1 */
static int
count_edit(const char *spool, struct count_edit *ce)
{
	struct lockedit le;
	char *out = NULL;
	size_t outlen = 0;
	int r = -1;

	if (ce->msg != NULL && (ce->msg[0] != '/' || strchr(ce->msg, '\n'))) {
		errno = EINVAL;
		return -1;
	}
	if (spool_edit_open(&le, spool, SPOOL_BOUNCE_COUNT_FILE) == -1)
		return -1;
	switch (lockedit_lines(
	    &le, LOCKEDIT_RECORDS, count_add_line, ce, &out, &outlen)) {
	case LOCKEDIT_COMMIT:
		if (lockedit_commit(&le, out, outlen) == 0)
			r = 1;
		break;
	case LOCKEDIT_LEAVE:
		r = 0;
		break;
	}
	free(out);
	lockedit_close(&le);
	return r;
}

/* spool_bounce_count_add - add's numbers into its list's line */
int
spool_bounce_count_add(const char *spool, const struct spool_bounce_count *add)
{
	struct count_edit ce = {.mine = *add, .add = 1};

	if (!name_addr_ok(add->list)) {
		errno = EINVAL;
		return -1;
	}
	return count_edit(spool, &ce) == -1 ? -1 : 0;
}

/* spool_bounce_count_once - add's numbers, and msg marked, unless msg
 * is marked already */
int
spool_bounce_count_once(
    const char *spool, const struct spool_bounce_count *add, const char *msg)
{
	struct count_edit ce = {.mine = *add, .msg = msg, .add = 1, .mark = 1};

	if (!name_addr_ok(add->list)) {
		errno = EINVAL;
		return -1;
	}
	return count_edit(spool, &ce);
}

/* spool_bounce_count_settled - msg's mark taken away */
int
spool_bounce_count_settled(const char *spool, const char *msg)
{
	struct count_edit ce = {.msg = msg};

	return count_edit(spool, &ce) == -1 ? -1 : 0;
}

/* spool_bounce_count_marked - whether msg's mark is in the file (read
 * whole as the last rewrite left it: rewrites are renames) */
int
spool_bounce_count_marked(const char *spool, const char *msg)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, ml = strlen(COUNT_MARK);
	int found = 0;
	ssize_t n;
	FILE *fp;

	if (spool_path(path, sizeof(path), spool, SPOOL_BOUNCE_COUNT_FILE) ==
	    -1)
		return -1;
	if ((fp = fopen(path, "re")) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (!found && (n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		found = strncmp(line, COUNT_MARK, ml) == 0 &&
			strcmp(line + ml, msg) == 0;
	}
	free(line);
	if (!found && ferror(fp))
		found = -1;
	fclose(fp);
	return found;
}

/* count_line - io_lines_load's parse: a line that is not damaged */
static int
count_line(char *line, void *rec, void *arg)
{
	(void)arg;
	return count_parse(line, rec);
}

/* spool_bounce_count_list - every list's counts */
int
spool_bounce_count_list(
    const char *spool, struct spool_bounce_count **v, size_t *n)
{
	char path[PATH_MAX];

	*v = NULL, *n = 0;
	if (spool_path(path, sizeof(path), spool, SPOOL_BOUNCE_COUNT_FILE) ==
	    -1)
		return -1;
	return io_lines_load(
	    path, sizeof(**v), count_line, NULL, (void **)v, n);
}
