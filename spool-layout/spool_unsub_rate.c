/*
 * spool_unsub_rate.c - one-click unsubscribe requests counted, per
 * address and in all: $spool/state/unsubscribe.
 *
 * A fixed window per key: the first request starts a period, in which at
 * most the bound's limit are let through.  The global bound is checked
 * first, so a request it refuses adds no line; a line lives one period,
 * so the file holds at most the all-limit times (address period / all
 * period) lines.  A refused request writes nothing: a flood costs a lock
 * and a read.  The counts are not precious (a crash that loses them
 * lets a few more requests through), so a request let through rewrites
 * the file in place under the lock, with no fsync and no rename
 * (lockedit_overwrite): each request of a busy search or one-click CGI
 * costs no disk wait, and concurrent requests still count one at a time.
 * A torn file (a crash mid-write) is read as well as it parses: a
 * line that does not is skipped, and of two lines of one key the
 * larger count holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spool_edit.h"
#include "spool_unsub_rate.h"

/* A key's line as found: its period's end and count, 0 0 when none. */
struct spool_unsub_seen {
	long long end, count;
};

/* spool_unsub_full - the bound is reached for a key seen so */
static int
spool_unsub_full(
    const struct spool_unsub_bound *b, const struct spool_unsub_seen *s)
{
	return b->limit > 0 && s->count >= b->limit;
}

/* spool_unsub_line - the line of key, counted one more */
static void
spool_unsub_line(FILE *fp, const char *key, const struct spool_unsub_bound *b,
    const struct spool_unsub_seen *s, time_t now)
{
	if (b->limit <= 0)
		return;
	fprintf(fp, "%lld %lld %s\n",
	    s->count > 0 ? s->end : (long long)now + b->period, s->count + 1,
	    key);
}

/* spool_unsub_rate_take - count one request of key against both bounds;
 * nothing is counted when either is reached */
enum spool_unsub_rate
spool_unsub_rate_take(const char *spool, const char *key,
    const struct spool_unsub_bound *addr, const struct spool_unsub_bound *all,
    time_t now)
{
	return spool_rate_file_take(
	    spool, SPOOL_UNSUB_RATE_FILE, key, addr, all, now);
}

/* spool_rate_file_take - one request of key counted in file (a path
 * under the spool: the unsubscribe requests', the archive searches'),
 * per key and in all, each within its bound */
enum spool_unsub_rate
spool_rate_file_take(const char *spool, const char *file, const char *key,
    const struct spool_unsub_bound *addr, const struct spool_unsub_bound *all,
    time_t now)
{
	char *line, *save = NULL, *out = NULL;
	struct spool_unsub_seen mine = {0, 0}, every = {0, 0}, *s;
	enum spool_unsub_rate r = SPOOL_UNSUB_ERROR;
	long long end, count;
	struct lockedit le;
	size_t outlen = 0;
	FILE *fp;
	int n;

	if (addr->limit <= 0 && all->limit <= 0)
		return SPOOL_UNSUB_OK;
	if (spool_edit_open(&le, spool, file) == -1)
		return SPOOL_UNSUB_ERROR;
	if ((fp = open_memstream(&out, &outlen)) == NULL)
		goto done;
	for (line = strtok_r(le.text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lld %lld %n", &end, &count, &n) != 2 ||
		    end <= (long long)now)
			continue; /* garbage or a finished period */
		s = strcmp(line + n, SPOOL_UNSUB_RATE_ALL) == 0 ? &every
		    : strcasecmp(line + n, key) == 0		? &mine
								: NULL;
		if (s != NULL) {
			if (count > s->count) {
				s->end = end;
				s->count = count;
			}
		} else
			fprintf(fp, "%s\n", line);
	}
	if (spool_unsub_full(all, &every)) {
		r = SPOOL_UNSUB_ALL_FULL;
	} else if (spool_unsub_full(addr, &mine)) {
		r = SPOOL_UNSUB_ADDR_FULL;
	} else {
		spool_unsub_line(fp, SPOOL_UNSUB_RATE_ALL, all, &every, now);
		spool_unsub_line(fp, key, addr, &mine, now);
		r = SPOOL_UNSUB_OK;
	}
	if (fclose(fp) == EOF)
		r = SPOOL_UNSUB_ERROR;
	else if (r == SPOOL_UNSUB_OK &&
		 lockedit_overwrite(&le, out, outlen) == -1)
		r = SPOOL_UNSUB_ERROR;
done:
	free(out);
	lockedit_close(&le);
	return r;
}
