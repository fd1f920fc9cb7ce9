/*
 * spool_incident.c - open incidents, in $spool/state/incidents: a
 * destination that answered a large share of a post's recipients with
 * the same policy or transient failure (listfn/bounce_record.c judges).
 *
 * The file is small (one line per list, destination and class open now)
 * and rewritten under lockedit's lock when an incident is noted; lines
 * last seen SPOOL_INCIDENT_CLEAR ago or more are dropped then, and left
 * out by every reader, so an incident clears two days after the destination
 * last refused.  The lines are not precious: a crash that loses a
 * rewrite costs at most a second notice to the owners.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io_lines.h"
#include "spool_incident.h"
#include "spool_edit.h"
#include "spool_path.h"

/* incident_parse - a line into in; 0, or -1 when damaged */
static int
incident_parse(const char *line, struct spool_incident *in)
{
	int k = 0;

	memset(in, 0, sizeof(*in));
	if (sscanf(line, "%lld %lld %lld %lld %254s %253s %15s %n", &in->since,
		&in->last, &in->count, &in->total, in->list, in->dest,
		in->class, &k) < 7 ||
	    k == 0)
		return -1;
	(void)strlcpy(in->reply, line + k, sizeof(in->reply)); /* may cut */
	return 0;
}

/* incident_same - the same list, destination and class */
static int
incident_same(const struct spool_incident *a, const struct spool_incident *b)
{
	return strcasecmp(a->list, b->list) == 0 &&
	       strcasecmp(a->dest, b->dest) == 0 &&
	       strcmp(a->class, b->class) == 0;
}

/* incident_write - one line */
static void
incident_write(FILE *fp, const struct spool_incident *in)
{
	fprintf(fp, "%lld %lld %lld %lld %s %s %s %s\n", in->since, in->last,
	    in->count, in->total, in->list, in->dest, in->class, in->reply);
}

/* spool_incident_note - note in at now; 1 new, 0 refreshed, -1 error */
int
spool_incident_note(
    const char *spool, const struct spool_incident *in, time_t now)
{
	char *line, *save = NULL, *out = NULL;
	struct spool_incident old, mine = *in;
	struct lockedit le;
	size_t outlen = 0;
	int r = -1, isnew = 1;
	FILE *fp;

	if (spool_edit_open(&le, spool, SPOOL_INCIDENT_FILE) == -1)
		return -1;
	if ((fp = open_memstream(&out, &outlen)) == NULL)
		goto done;
	mine.since = mine.last = (long long)now;
	for (line = strtok_r(le.text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (incident_parse(line, &old) == -1 ||
		    old.last + SPOOL_INCIDENT_CLEAR <= (long long)now)
			continue; /* damaged, or cleared */
		if (incident_same(&old, &mine)) {
			mine.since = old.since;
			isnew = 0;
		} else
			fprintf(fp, "%s\n", line);
	}
	incident_write(fp, &mine);
	if (fclose(fp) == EOF)
		goto done;
	if (lockedit_commit(&le, out, outlen) == 0)
		r = isnew;
done:
	free(out);
	lockedit_close(&le);
	return r;
}

/* incident_open - io_lines_load's parse: a line of an incident open
 * at *arg (a time_t) */
static int
incident_open(char *line, void *rec, void *arg)
{
	struct spool_incident *in = rec;

	return incident_parse(line, in) == -1 ||
		       in->last + SPOOL_INCIDENT_CLEAR <=
			   (long long)*(const time_t *)arg
		   ? -1
		   : 0;
}

/* spool_incident_list - the open incidents */
int
spool_incident_list(
    const char *spool, time_t now, struct spool_incident **v, size_t *n)
{
	char path[PATH_MAX];

	*v = NULL, *n = 0;
	if (spool_path(path, sizeof(path), spool, SPOOL_INCIDENT_FILE) == -1)
		return -1;
	return io_lines_load(
	    path, sizeof(**v), incident_open, &now, (void **)v, n);
}
