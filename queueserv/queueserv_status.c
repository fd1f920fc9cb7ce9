/*
 * queueserv_status.c - the reply to "status": the pool and the spool.
 *
 * Runs in a helper child (queueserv_control.c), so it reads the pool from
 * the copy of the server's memory it was forked with and may take its
 * time walking the spool.  The spool part counts, per priority tier,
 * outstanding messages (QUEUE/), split into due (mtime, the not-before
 * time, has come) and deferred, plus held (HOLD/) and quarantined (BAD/),
 * and the age of the oldest outstanding message (its birth time where
 * the file system keeps one, else its mtime).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "queueserv.h"
#include "spool_walk.h"

struct tier {
	int dprio, lprio;
	long outstanding, due, deferred, held, bad;
};

struct counts {
	struct tier *tiers;
	size_t ntiers;
	struct tier total;
	time_t now;
	time_t oldest; /* 0: none */
	int failed;
};

/* status_tier - the counters of one tier, made on first use */
static struct tier *
status_tier(struct counts *k, int dprio, int lprio)
{
	struct tier *t;
	size_t i;

	for (i = 0; i < k->ntiers; i++)
		if (k->tiers[i].dprio == dprio && k->tiers[i].lprio == lprio)
			return &k->tiers[i];
	if ((t = reallocarray(k->tiers, k->ntiers + 1, sizeof(*t))) == NULL)
		return NULL;
	k->tiers = t;
	t = &k->tiers[k->ntiers++];
	memset(t, 0, sizeof(*t));
	t->dprio = dprio;
	t->lprio = lprio;
	return t;
}

/* status_born - when a message arrived, as well as the inode tells */
static time_t
status_born(const struct spool_entry *e)
{
	struct statx sx;

	if (statx(AT_FDCWD, e->path, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &sx) ==
		0 &&
	    (sx.stx_mask & STATX_BTIME))
		return (time_t)sx.stx_btime.tv_sec;
	return e->st.st_mtime;
}

/* status_count - one message */
static int
status_count(void *arg, const struct spool_entry *e)
{
	struct counts *k = arg;
	struct tier *t;
	time_t born;

	if (e->stray)
		return 0;
	if ((t = status_tier(k, e->domain_prio, e->list_prio)) == NULL) {
		k->failed = 1;
		return 1;
	}
	if (strcmp(e->top, SPOOL_HOLD) == 0) {
		t->held++, k->total.held++;
	} else if (strcmp(e->top, SPOOL_BAD) == 0) {
		t->bad++, k->total.bad++;
	} else {
		t->outstanding++, k->total.outstanding++;
		if (e->st.st_mtime <= k->now)
			t->due++, k->total.due++;
		else
			t->deferred++, k->total.deferred++;
		born = status_born(e);
		if (k->oldest == 0 || born < k->oldest)
			k->oldest = born;
	}
	return 0;
}

/* status_cmp - tiers in the order runners take them: high first */
static int
status_cmp(const void *a, const void *b)
{
	const struct tier *x = a, *y = b;

	if (x->dprio != y->dprio)
		return y->dprio - x->dprio;
	return y->lprio - x->lprio;
}

/* status_spool - count QUEUE, HOLD and BAD */
static int
status_spool(const struct qs *qs, struct counts *k)
{
	static const char *const tops[] = {SPOOL_QUEUE, SPOOL_HOLD, SPOOL_BAD};
	size_t i;

	memset(k, 0, sizeof(*k));
	k->now = time(NULL);
	for (i = 0; i < 3; i++)
		if (spool_walk(qs->s.spool_dir, tops[i], status_count, k) ==
			-1 &&
		    i == 0)
			return -1;
	if (k->failed)
		return -1;
	qsort(k->tiers, k->ntiers, sizeof(*k->tiers), status_cmp);
	return 0;
}

/* status_text - the human table */
static void
status_text(const struct qs *qs, const struct counts *k, FILE *fp)
{
	time_t now = time(NULL);
	const struct slot *sl;
	size_t i;

	fprintf(fp,
	    "server: pid %ld, up %llds, %llu pokes, runners %d of %lld "
	    "(min %lld)\n",
	    (long)qs->pid, (long long)(now - qs->started_wall), qs->pokes,
	    queueserv_pool_live(qs), qs->s.queueserv_max_runners,
	    qs->s.queueserv_min_runners);
	fprintf(fp, "%-5s %-8s %-10s %8s %8s %8s\n", "slot", "pid", "state",
	    "in-hand", "done", "uptime");
	for (i = 0; i < qs->nslots; i++) {
		sl = &qs->slots[i];
		if (sl->state == SLOT_EMPTY)
			continue;
		fprintf(fp, "%-5d %-8ld %-10s %8d %8ld %7llds\n", sl->index,
		    (long)sl->pid, queueserv_pool_state_name(sl->state),
		    sl->inhand, sl->done,
		    sl->pid ? (long long)(now - sl->started_wall) : 0LL);
	}
	fprintf(fp, "%-6s %11s %8s %8s %8s %11s\n", "tier", "outstanding",
	    "due", "deferred", "held", "quarantined");
	for (i = 0; i < k->ntiers; i++)
		fprintf(fp, "%02d/%02d  %11ld %8ld %8ld %8ld %11ld\n",
		    k->tiers[i].dprio, k->tiers[i].lprio,
		    k->tiers[i].outstanding, k->tiers[i].due,
		    k->tiers[i].deferred, k->tiers[i].held, k->tiers[i].bad);
	fprintf(fp, "%-6s %11ld %8ld %8ld %8ld %11ld\n", "total",
	    k->total.outstanding, k->total.due, k->total.deferred,
	    k->total.held, k->total.bad);
	if (k->oldest != 0)
		fprintf(fp, "oldest: %llds\n", (long long)(now - k->oldest));
	else
		fprintf(fp, "oldest: -\n");
}

/* status_json_tier - one tier's counters as JSON members */
static void
status_json_tier(FILE *fp, const struct tier *t)
{
	fprintf(fp,
	    "\"outstanding\":%ld,\"due\":%ld,\"deferred\":%ld,"
	    "\"held\":%ld,\"quarantined\":%ld",
	    t->outstanding, t->due, t->deferred, t->held, t->bad);
}

/* status_json - the same, for monitoring: one JSON object */
static void
status_json(const struct qs *qs, const struct counts *k, FILE *fp)
{
	time_t now = time(NULL);
	const struct slot *sl;
	const char *sep = "";
	size_t i;

	fprintf(fp,
	    "{\"server\":{\"pid\":%ld,\"uptime\":%lld,\"pokes\":%llu,"
	    "\"runners\":%d,\"min_runners\":%lld,\"max_runners\":%lld},"
	    "\"runners\":[",
	    (long)qs->pid, (long long)(now - qs->started_wall), qs->pokes,
	    queueserv_pool_live(qs), qs->s.queueserv_min_runners,
	    qs->s.queueserv_max_runners);
	for (i = 0; i < qs->nslots; i++) {
		sl = &qs->slots[i];
		if (sl->state == SLOT_EMPTY)
			continue;
		fprintf(fp,
		    "%s{\"slot\":%d,\"pid\":%ld,\"state\":\"%s\","
		    "\"in_hand\":%d,\"done\":%ld,\"uptime\":%lld}",
		    sep, sl->index, (long)sl->pid,
		    queueserv_pool_state_name(sl->state), sl->inhand, sl->done,
		    sl->pid ? (long long)(now - sl->started_wall) : 0LL);
		sep = ",";
	}
	fprintf(fp, "],\"spool\":{");
	status_json_tier(fp, &k->total);
	if (k->oldest != 0)
		fprintf(fp, ",\"oldest_age\":%lld,\"tiers\":[",
		    (long long)(now - k->oldest));
	else
		fprintf(fp, ",\"oldest_age\":null,\"tiers\":[");
	for (i = 0; i < k->ntiers; i++) {
		fprintf(fp, "%s{\"domain_prio\":%d,\"list_prio\":%d,",
		    i ? "," : "", k->tiers[i].dprio, k->tiers[i].lprio);
		status_json_tier(fp, &k->tiers[i]);
		fprintf(fp, "}");
	}
	fprintf(fp, "]}}\n");
}

/* queueserv_status_write - the whole reply, ended by an empty line */
int
queueserv_status_write(const struct qs *qs, int fd, int json)
{
	struct counts k;
	FILE *fp;
	int dfd, r;

	if ((dfd = dup(fd)) == -1 || (fp = fdopen(dfd, "w")) == NULL)
		return -1;
	if (status_spool(qs, &k) == -1)
		fprintf(
		    fp, "error: cannot read the spool %s\n", qs->s.spool_dir);
	else if (json)
		status_json(qs, &k, fp);
	else
		status_text(qs, &k, fp);
	fprintf(fp, "\n");
	free(k.tiers);
	r = ferror(fp) ? -1 : 0;
	if (fclose(fp) == EOF)
		r = -1;
	return r;
}
