/*
 * spool_bounce_count.c - how many failures the runners judged per list
 * and class, and how many complaints they took: $spool/state/bounce-counts.
 *
 * Counters for the operator (mj_queueserv status, its Prometheus form):
 * they only grow.  The file holds one line per list and is rewritten
 * whole under lockedit's lock, once per judged batch or report.  The
 * lines are not precious: a crash that loses a rewrite loses the counts
 * of one batch, and a damaged line is dropped at the next rewrite.
 */
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

/* count_add_line - lockedit_lines' callback: the other lists' lines
 * stay, damaged ones go, the list's own is added into *mine, which goes
 * to the end */
static int
count_add_line(void *arg, FILE *fp, char *line, size_t len)
{
	struct spool_bounce_count old, *mine = arg;
	int i;

	(void)len;
	if (line == NULL) {
		count_write(fp, mine);
		return LOCKEDIT_COMMIT;
	}
	if (count_parse(line, &old) == -1)
		return LOCKEDIT_DROP; /* damaged: dropped */
	if (strcasecmp(old.list, mine->list) != 0)
		return LOCKEDIT_KEEP;
	for (i = 0; i < SPOOL_BOUNCE_CLASSES; i++)
		mine->judged[i] += old.judged[i];
	mine->complaints += old.complaints;
	return LOCKEDIT_DROP;
}

/* spool_bounce_count_add - add's numbers into its list's line */
int
spool_bounce_count_add(const char *spool, const struct spool_bounce_count *add)
{
	struct spool_bounce_count mine = *add;
	struct lockedit le;
	char *out = NULL;
	size_t outlen = 0;
	int r = -1;

	if (!name_addr_ok(add->list)) {
		errno = EINVAL;
		return -1;
	}
	if (spool_edit_open(&le, spool, SPOOL_BOUNCE_COUNT_FILE) == -1)
		return -1;
	if (lockedit_lines(&le, LOCKEDIT_RECORDS, count_add_line, &mine, &out,
		&outlen) != -1)
		r = lockedit_commit(&le, out, outlen);
	free(out);
	lockedit_close(&le);
	return r;
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
