/*
 * bounce_score.c - count a subscriber's failures slowly: at most one
 * count per address per day, the strongest class of that day kept, each
 * weighed by its class (the list's bounce_weight_* keys).
 *
 * The counts live beside the subscribers, in <lists>/<domain>/<list>/
 * bounces, one line per address:
 *
 *     <address> <time>:<class> <time>:<class> ...
 *
 * a time (Unix seconds, of the day's first counted failure) and the class
 * letter (r recipient, m mailbox; a bare time, as written before classes,
 * is a recipient failure) per day, oldest first.  Counts older than
 * max_age are dropped at each rewrite; the line goes when the score
 * reaches the threshold (the caller then acts) or when no count is left.
 * Changed under lockedit's lock (bounces.lock), so concurrent runners
 * never lose a count.  A day is a UTC day (time / 86400): a forger who
 * sends a thousand bounces a day still adds one count a day.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounce_score.h"
#include "list_path.h"
#include "listconf.h"
#include "lockedit.h"
#include "log.h"

#define DAY 86400
#define SCORE_DAYS_MAX 366 /* counts kept per address (max_age <= 365d) */

struct score_day {
	long long t;
	enum bounce_class class;
};

/* score_letter - the class as its letter in the file */
static char
score_letter(enum bounce_class c)
{
	return c == BOUNCE_MAILBOX ? 'm' : 'r';
}

/* score_read - the counts of one line's words (after the address),
 * those older than max_age left out; how many */
static size_t
score_read(char *words, const struct bounce_rule *rule, time_t now,
    struct score_day *d)
{
	char *w, *save = NULL, *end;
	size_t n = 0;
	long long t;

	for (w = strtok_r(words, " ", &save); w != NULL && n < SCORE_DAYS_MAX;
	     w = strtok_r(NULL, " ", &save)) {
		errno = 0;
		t = strtoll(w, &end, 10);
		if (errno != 0 || end == w ||
		    t + rule->max_age <= (long long)now)
			continue;
		d[n].t = t;
		d[n].class =
		    strcmp(end, ":m") == 0 ? BOUNCE_MAILBOX : BOUNCE_RECIPIENT;
		n++;
	}
	return n;
}

/* score_merge - class at now into the days: 1 the score rose */
static int
score_merge(struct score_day *d, size_t *n, enum bounce_class class, time_t now,
    const struct bounce_rule *rule)
{
	if (*n > 0 && d[*n - 1].t / DAY == (long long)now / DAY) {
		if (rule->weight[class] <= rule->weight[d[*n - 1].class])
			return 0;
		d[*n - 1].class = class;
		return 1;
	}
	if (*n == SCORE_DAYS_MAX) {
		memmove(d, d + 1, (*n - 1) * sizeof(*d));
		(*n)--;
	}
	d[*n].t = (long long)now;
	d[(*n)++].class = class;
	return 1;
}

/* What bounce_score_add's walk is given and finds. */
struct score_walk {
	const char *addr;
	enum bounce_class class;
	time_t now;
	const struct bounce_rule *rule;
	struct score_day d[SCORE_DAYS_MAX];
	size_t n;
	int rose;
	long long *score;
};

/* score_line - lockedit_lines' callback: the other addresses' lines
 * stay; addr's counts are read, and its line, with class at now
 * counted, goes to the end unless the score reached the threshold */
static int
score_line(void *arg, FILE *fp, char *line, size_t len)
{
	struct score_walk *sw = arg;
	size_t alen = strlen(sw->addr), i;

	(void)len;
	if (line != NULL) {
		if (strncasecmp(line, sw->addr, alen) != 0 ||
		    (line[alen] != ' ' && line[alen] != '\0'))
			return LOCKEDIT_KEEP;
		if (sw->n == 0) /* one line per address; a second is dropped */
			sw->n =
			    score_read(line + alen, sw->rule, sw->now, sw->d);
		return LOCKEDIT_DROP;
	}
	sw->rose = score_merge(sw->d, &sw->n, sw->class, sw->now, sw->rule);
	for (*sw->score = 0, i = 0; i < sw->n; i++)
		*sw->score += sw->rule->weight[sw->d[i].class];
	if (sw->rule->threshold == 0 || *sw->score < sw->rule->threshold) {
		fprintf(fp, "%s", sw->addr);
		for (i = 0; i < sw->n; i++)
			fprintf(fp, " %lld:%c", sw->d[i].t,
			    score_letter(sw->d[i].class));
		fprintf(fp, "\n");
	}
	return LOCKEDIT_COMMIT;
}

/* bounce_score_add - count class for addr now, one count a day */
int
bounce_score_add(const struct settings *s, const char *domain, const char *list,
    const char *addr, enum bounce_class class, time_t now,
    const struct bounce_rule *rule, long long *score)
{
	struct score_walk sw = {.addr = addr,
	    .class = class,
	    .now = now,
	    .rule = rule,
	    .score = score};
	char path[PATH_MAX], *out = NULL;
	struct lockedit le;
	size_t outlen = 0;
	int ok = -1;

	if ((unsigned)class >= BOUNCE_CLASSES ||
	    list_path(path, sizeof(path), s, domain, list, "bounces") == -1)
		return -1;
	if (lockedit_open(&le, path) == -1) {
		log_warn("cannot lock and read %s", path);
		return -1;
	}
	if (lockedit_lines(
		&le, LOCKEDIT_RECORDS, score_line, &sw, &out, &outlen) != -1 &&
	    lockedit_commit(&le, out, outlen) == 0)
		ok = sw.rose;
	free(out);
	lockedit_close(&le);
	return ok;
}
