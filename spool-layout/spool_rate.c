/*
 * spool_rate.c - replies counted per address: $spool/state/replies.
 *
 * A fixed window per address: the first reply starts a period of
 * `period` seconds, in which at most `limit` replies go out.  Lines of
 * finished periods are dropped at each rewrite, so the file holds only
 * the addresses answered lately.  A limit of 0 means no limit (and no
 * file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spool_edit.h"
#include "spool_rate.h"

/* spool_rate_take - count one reply to addr: 1 it may go, 0 the limit is
 * reached, -1 error */
int
spool_rate_take(const char *spool, const char *addr, long long limit,
    long long period, time_t now)
{
	char *line, *save = NULL, *out = NULL;
	long long start, count, mine = 0;
	struct lockedit le;
	size_t outlen = 0;
	int ok = 1, r = -1, n;
	FILE *fp;

	if (limit <= 0)
		return 1;
	if (spool_edit_open(&le, spool, SPOOL_RATE_FILE) == -1)
		return -1;
	if ((fp = open_memstream(&out, &outlen)) == NULL)
		goto done;
	for (line = strtok_r(le.text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lld %lld %n", &start, &count, &n) != 2 ||
		    start + period <= (long long)now)
			continue; /* garbage or a finished period */
		if (strcasecmp(line + n, addr) == 0) {
			mine = 1;
			if (count >= limit)
				ok = 0;
			else
				count++;
		}
		fprintf(fp, "%lld %lld %s\n", start, count, line + n);
	}
	if (!mine)
		fprintf(fp, "%lld 1 %s\n", (long long)now, addr);
	if (fclose(fp) == EOF)
		goto done;
	if (lockedit_commit(&le, out, outlen) == -1)
		goto done;
	r = ok;
done:
	free(out);
	lockedit_close(&le);
	return r;
}
