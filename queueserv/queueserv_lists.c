/*
 * queueserv_lists.c - each list's bounce handling, for the operator: the
 * failures the runners judged per class and the ARF complaints they took
 * ($spool/state/bounce-counts), the addresses disabled after their
 * bounces (<list dir>/subscribers.disabled) with why, since when and
 * their probes, and the list's open incidents (state/incidents).
 *
 * mj_queueserv status shows them (queueserv_status.c: a line per list
 * with anything to show, and one per disabled address; -j a "lists"
 * array of every list; -p queueserv_prom.c), and mj_queueserv disabled
 * lists the disabled addresses alone, with the state of their probes.
 * Every list of the lists directory has a row (list_walk), and so has a
 * list the counts still name after it was removed.  Read-only and
 * lock-free: a file being rewritten is read whole, old or new
 * (lockedit renames).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>
#include <time.h>

#include "lists.h"
#include "queueserv_status.h"
#include "spool_bounce_count.h"

/* The classes in the order of the counts file (spool_bounce_count.h). */
static const char *const lists_class[SPOOL_BOUNCE_CLASSES] = {
    "recipient", "mailbox", "policy", "transient", "unknown"};

struct lists_walk {
	const struct settings *s;
	struct counts *k;
	const char *only; /* list@domain, or NULL for every list */
	int failed;
};

/* lists_row - a new row for list@domain, its disabled addresses read;
 * NULL when out of memory */
static struct list_row *
lists_row(struct lists_walk *w, const char *domain, const char *list)
{
	struct counts *k = w->k;
	struct list_row *r;

	if ((r = reallocarray(k->lists, k->nlists + 1, sizeof(*r))) == NULL)
		return NULL;
	k->lists = r;
	r = &k->lists[k->nlists];
	memset(r, 0, sizeof(*r));
	snprintf(r->list, sizeof(r->list), "%s@%s", list, domain);
	(void)strlcpy(r->domain, domain, sizeof(r->domain)); /* checked */
	if (subs_disabled_load(w->s, domain, list, &r->off, &r->noff) == -1)
		r->off = NULL, r->noff = 0; /* unreadable: shown as none */
	k->nlists++;
	return r;
}

/* lists_one - list_walk's call: one list's row */
static int
lists_one(void *arg, const char *domain, const char *list)
{
	struct lists_walk *w = arg;
	char name[NAME_ADDR_MAX + 1];

	snprintf(name, sizeof(name), "%s@%s", list, domain);
	if (w->only != NULL && strcasecmp(w->only, name) != 0)
		return 0;
	if (lists_row(w, domain, list) == NULL) {
		w->failed = 1;
		return 1;
	}
	return 0;
}

/* lists_find - the row of list@domain, or NULL */
static struct list_row *
lists_find(const struct counts *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->nlists; i++)
		if (strcasecmp(k->lists[i].list, name) == 0)
			return &k->lists[i];
	return NULL;
}

/* lists_counts - the counters of state/bounce-counts into the rows; a
 * list that is gone gets a row of its own */
static int
lists_counts(const char *spool, struct counts *k)
{
	struct spool_bounce_count *v;
	struct list_row *r;
	size_t n, i;

	if (spool_bounce_count_list(spool, &v, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if ((r = lists_find(k, v[i].list)) == NULL) {
			if ((r = reallocarray(k->lists, k->nlists + 1,
				 sizeof(*r))) == NULL) {
				free(v);
				return -1;
			}
			k->lists = r;
			r = &k->lists[k->nlists++];
			memset(r, 0, sizeof(*r));
			(void)strlcpy(r->list, v[i].list, sizeof(r->list));
		}
		memcpy(r->judged, v[i].judged, sizeof(r->judged));
		r->complaints = v[i].complaints;
	}
	free(v);
	return 0;
}

/* queueserv_lists_load - every list's row into k (k->incidents read
 * first); 0 or -1 */
int
queueserv_lists_load(const struct settings *s, struct counts *k)
{
	struct lists_walk w = {s, k, NULL, 0};
	struct list_row *r;
	size_t i;

	/* no lists directory (yet): no lists, but the counts */
	(void)list_walk(s, lists_one, &w);
	if (w.failed || lists_counts(s->spool_dir, k) == -1)
		return -1;
	for (i = 0; i < k->nincidents; i++)
		if ((r = lists_find(k, k->incidents[i].list)) != NULL)
			r->incidents++;
	return 0;
}

/* queueserv_lists_free - the rows and their disabled addresses */
void
queueserv_lists_free(struct counts *k)
{
	while (k->nlists > 0)
		free(k->lists[--k->nlists].off);
	free(k->lists);
	k->lists = NULL;
}

/* lists_time - a time as 2026-11-25T10:00:00Z, or "-" for none */
static void
lists_time(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void)strlcpy(buf, "-", len);
}

/* lists_probe_state - none (no probe sent yet), out (the last one sent
 * and not bounced) or bounced */
static const char *
lists_probe_state(const struct subs_disabled *d)
{
	if (d->probes == 0)
		return "none";
	return d->failed ? "bounced" : "out";
}

/* lists_disabled_line - one disabled address as key=value words, why
 * last (words for people); probes_max < 0 when not known */
static void
lists_disabled_line(FILE *fp, const struct list_row *r,
    const struct subs_disabled *d, long long probes_max)
{
	char since[32], last[32];

	lists_time(d->since, since, sizeof(since));
	lists_time(d->probe_time, last, sizeof(last));
	fprintf(
	    fp, "%s %s since=%s probes=%d", r->list, d->addr, since, d->probes);
	if (probes_max >= 0)
		fprintf(fp, "/%lld", probes_max);
	fprintf(fp, " last_probe=%s probe=%s why=%s\n", last,
	    lists_probe_state(d), d->why);
}

/* lists_anything - the row has something to show */
static int
lists_anything(const struct list_row *r)
{
	size_t i;

	for (i = 0; i < SPOOL_BOUNCE_CLASSES; i++)
		if (r->judged[i] > 0)
			return 1;
	return r->complaints > 0 || r->noff > 0 || r->incidents > 0;
}

/* queueserv_lists_text - a line per list with anything to show, then
 * one per disabled address */
void
queueserv_lists_text(const struct counts *k, FILE *fp)
{
	const struct list_row *r;
	size_t i, c, j;

	for (i = 0; i < k->nlists; i++) {
		r = &k->lists[i];
		if (!lists_anything(r))
			continue;
		fprintf(fp, "list: %s judged", r->list);
		for (c = 0; c < SPOOL_BOUNCE_CLASSES; c++)
			fprintf(fp, " %s %llu", lists_class[c], r->judged[c]);
		fprintf(fp, ", complaints %llu, disabled %zu, incidents %zu\n",
		    r->complaints, r->noff, r->incidents);
		for (j = 0; j < r->noff; j++) {
			fprintf(fp, "disabled: ");
			lists_disabled_line(fp, r, &r->off[j], -1);
		}
	}
}

/* lists_json_disabled - a row's "disabled_addresses" array */
static void
lists_json_disabled(FILE *fp, const struct list_row *r)
{
	const struct subs_disabled *d;
	size_t j;

	fprintf(fp, ",\"disabled_addresses\":[");
	for (j = 0; j < r->noff; j++) {
		d = &r->off[j];
		fprintf(fp, "%s{\"address\":", j ? "," : "");
		json_out_str(fp, d->addr);
		fprintf(fp,
		    ",\"since\":%lld,\"probes\":%d,\"last_probe\":%lld,"
		    "\"probe\":\"%s\",\"why\":",
		    d->since, d->probes, d->probe_time, lists_probe_state(d));
		json_out_str(fp, d->why);
		fprintf(fp, "}");
	}
	fprintf(fp, "]");
}

/* queueserv_lists_json - ,"lists":[...]: every list */
void
queueserv_lists_json(const struct counts *k, FILE *fp)
{
	const struct list_row *r;
	size_t i, c;

	fprintf(fp, ",\"lists\":[");
	for (i = 0; i < k->nlists; i++) {
		r = &k->lists[i];
		fprintf(fp, "%s{\"list\":", i ? "," : "");
		json_out_str(fp, r->list);
		fprintf(fp, ",\"judged\":{");
		for (c = 0; c < SPOOL_BOUNCE_CLASSES; c++)
			fprintf(fp, "%s\"%s\":%llu", c ? "," : "",
			    lists_class[c], r->judged[c]);
		fprintf(fp, "},\"complaints\":%llu,\"disabled\":%zu",
		    r->complaints, r->noff);
		lists_json_disabled(fp, r);
		fprintf(fp, ",\"incidents\":%zu}", r->incidents);
	}
	fprintf(fp, "]");
}

/* queueserv_lists_class - the name of column c of the counts */
const char *
queueserv_lists_class(size_t c)
{
	return c < SPOOL_BOUNCE_CLASSES ? lists_class[c] : "unknown";
}

/* lists_probes_max - the list's bounce_probes, or -1 */
static long long
lists_probes_max(const struct settings *s, const struct list_row *r)
{
	char list[NAME_LIST_MAX + 1], err[256];
	struct listconf lc;
	size_t n = strcspn(r->list, "@");

	if (n > NAME_LIST_MAX)
		return -1;
	memcpy(list, r->list, n);
	list[n] = '\0';
	if (listconf_load(s, r->domain, list, &lc, err, sizeof(err)) == -1)
		return -1;
	return lc.bounce_probes;
}

/* queueserv_lists_disabled - mj_queueserv disabled [list@domain]: one
 * line per disabled address, then a count; a sysexits code */
int
queueserv_lists_disabled(const struct settings *s, const char *only)
{
	struct counts k;
	struct lists_walk w = {s, &k, only, 0};
	size_t i, j, total = 0;
	long long max;

	memset(&k, 0, sizeof(k));
	if (list_walk(s, lists_one, &w) == -1 || w.failed) {
		fprintf(stderr,
		    "mj_queueserv: cannot read the lists directory "
		    "%s\n",
		    s->lists_dir);
		queueserv_lists_free(&k);
		return EX_NOINPUT;
	}
	if (only != NULL && k.nlists == 0) {
		fprintf(stderr, "mj_queueserv: no list %s\n", only);
		return EX_NOUSER;
	}
	for (i = 0; i < k.nlists; i++) {
		max = lists_probes_max(s, &k.lists[i]);
		for (j = 0; j < k.lists[i].noff; j++, total++)
			lists_disabled_line(
			    stdout, &k.lists[i], &k.lists[i].off[j], max);
	}
	printf("%zu disabled address%s\n", total, total == 1 ? "" : "es");
	queueserv_lists_free(&k);
	return fflush(stdout) == EOF ? EX_IOERR : EX_OK;
}
