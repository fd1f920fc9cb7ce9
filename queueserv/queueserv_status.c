/*
 * queueserv_status.c - the reply to "status": the pool and the spool.
 *
 * Runs in a helper child (queueserv_control.c), so it reads the pool from
 * the copy of the server's memory it was forked with and may take its
 * time walking the spool.  The spool part counts, per priority tier,
 * outstanding messages (QUEUE/), split into due (mtime, the not-before
 * time, has come) and deferred, plus held (HOLD/) and quarantined (BAD/),
 * and the age of the oldest outstanding message (its birth time where
 * the file system keeps one, else its mtime), and held messages per list.
 * A domain with outstanding mail whose DKIM keys the runners cannot use
 * gets a line saying why: its mail waits until the key is fixed
 * (lists/dkim_conf.c).  The MTA-STS policies in force follow the
 * destinations (queueserv_sts.c), and each list's bounce handling (its
 * failures judged per class, complaints, disabled addresses and
 * incidents) comes last (queueserv_lists.c).  Three forms: a table, JSON (-j)
 * and Prometheus text (-p, queueserv_prom.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "lists.h"
#include "queueserv.h"
#include "queueserv_status.h"
#include "spool_dest.h"
#include "spool_walk.h"

#define STATUS_DOMAINS_MAX 1000 /* domains whose DKIM keys are checked */

/* status_domain - note the domain of an outstanding message */
static void
status_domain(struct counts *k, const char *domain)
{
	char **v;
	size_t i;

	for (i = 0; i < k->ndomains; i++)
		if (strcmp(k->domains[i], domain) == 0)
			return;
	if (k->ndomains == STATUS_DOMAINS_MAX ||
	    (v = reallocarray(k->domains, k->ndomains + 1, sizeof(*v))) == NULL)
		return;
	k->domains = v;
	if ((v[k->ndomains] = strdup(domain)) != NULL)
		k->ndomains++;
}

/* status_dkim - why the domain's mail cannot be signed, or 0 */
static int
status_dkim(const struct qs *qs, const char *domain, char *err, size_t errlen)
{
	struct dkim_conf dc;

	return dkim_conf_load(&qs->s, &qs->ls, domain, &dc, err, errlen) ==
		   -1 ||
	       dkim_conf_check(&dc, err, errlen) == -1;
}

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

/* status_held - one more message in HOLD/ for e's list */
static int
status_held(struct counts *k, const struct spool_entry *e)
{
	struct held_list *h;
	size_t i;

	for (i = 0; i < k->nheld; i++)
		if (strcmp(k->held[i].list, e->name.list) == 0 &&
		    strcmp(k->held[i].domain, e->domain) == 0) {
			k->held[i].n++;
			return 0;
		}
	if ((h = reallocarray(k->held, k->nheld + 1, sizeof(*h))) == NULL)
		return -1;
	k->held = h;
	h = &k->held[k->nheld++];
	strlcpy(h->domain, e->domain, sizeof(h->domain));
	strlcpy(h->list, e->name.list, sizeof(h->list));
	h->n = 1;
	return 0;
}

/* status_held_cmp - held lists by domain, then list */
static int
status_held_cmp(const void *a, const void *b)
{
	const struct held_list *x = a, *y = b;
	int c;

	if ((c = strcmp(x->domain, y->domain)) != 0)
		return c;
	return strcmp(x->list, y->list);
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
		if (status_held(k, e) == -1) {
			k->failed = 1;
			return 1;
		}
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
		status_domain(k, e->domain);
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
	memset(k, 0, sizeof(*k));
	k->now = time(NULL);
	if (spool_walk_tops(qs->s.spool_dir, 0, status_count, k) == -1)
		return -1;
	if (k->failed)
		return -1;
	/* qsort's array may not be NULL, even with no element (C11 7.1.4) */
	if (k->ntiers > 0)
		qsort(k->tiers, k->ntiers, sizeof(*k->tiers), status_cmp);
	if (k->nheld > 0)
		qsort(k->held, k->nheld, sizeof(*k->held), status_held_cmp);
	return 0;
}

/* status_dest_cmp - destinations by transport, nexthop, then source */
static int
status_dest_cmp(const void *a, const void *b)
{
	const struct dest_row *x = a, *y = b;
	int c;

	if ((c = strcmp(x->r.transport, y->r.transport)) != 0)
		return c;
	if ((c = strcmp(x->r.nexthop, y->r.nexthop)) != 0)
		return c;
	return strcmp(x->r.source, y->r.source);
}

/* status_dests - copy the shared destination table (none: no rows) */
static int
status_dests(const struct qs *qs, struct counts *k)
{
	struct spool_dest sd;
	struct dest_row *d;
	int i;

	if (spool_dest_open(&sd, qs->s.spool_dir, 0) == -1)
		return 0; /* no runner has made it yet */
	k->counts_since = sd.hdr->counts_since;
	k->cluster = __atomic_load_n(&sd.hdr->cluster, __ATOMIC_RELAXED);
	k->cluster_since =
	    __atomic_load_n(&sd.hdr->cluster_since, __ATOMIC_RELAXED);
	for (i = 0; i < SPOOL_DEST_RECORDS; i++) {
		if (!sd.rec[i].used || sd.rec[i].ds.window < 0)
			continue;
		if ((d = reallocarray(k->dests, k->ndests + 1, sizeof(*d))) ==
		    NULL) {
			spool_dest_close(&sd);
			return -1;
		}
		k->dests = d;
		d = &k->dests[k->ndests++];
		d->r = sd.rec[i];
		d->r.transport[sizeof(d->r.transport) - 1] = '\0';
		d->r.nexthop[sizeof(d->r.nexthop) - 1] = '\0';
		d->r.source[sizeof(d->r.source) - 1] = '\0';
		d->r.last_error[sizeof(d->r.last_error) - 1] = '\0';
		d->busy = spool_dest_held(&sd, i);
	}
	spool_dest_close(&sd);
	if (k->ndests > 0)
		qsort(k->dests, k->ndests, sizeof(*k->dests), status_dest_cmp);
	return 0;
}

/* status_dead_in - seconds until a dead destination's probe, 0 if due */
static long long
status_dead_in(const struct spool_dest_rec *r, time_t now)
{
	double left = r->ds.dead_until - (double)now;

	return left > 0 ? (long long)(left + 0.999) : 0;
}

/* status_ago - "-" or how long ago a time was */
static void
status_ago(double when, time_t now, char *buf, size_t len)
{
	if (when <= 0)
		(void)strlcpy(buf, "-", len); /* fits any buffer of ours */
	else
		clock_span((long long)((double)now - when), buf, len);
}

/* status_text_dests - the destination table, when there is one: the
 * recipients delivered, deferred and bounced since the server started,
 * the scheduler's state (window, busy slots, its positive feedback
 * pos_fb and negative hysteresis neg_fb, failed cohorts, dead for how
 * long) and the last error with its age */
static void
status_text_dests(const struct counts *k, time_t now, FILE *fp)
{
	const struct dest_row *d;
	char name[SPOOL_DEST_TRANSPORT_MAX + SPOOL_DEST_NEXTHOP_MAX +
		  SPOOL_DEST_SOURCE_MAX + 5];
	char dead[32], ago[32];
	size_t i;

	int width = 30, n;

	if (k->ndests == 0)
		return;
	/* The first column is as wide as the longest name (a maildir path
	 * can be long), so the numbers stay in their columns. */
	for (i = 0; i < k->ndests; i++) {
		d = &k->dests[i];
		n = (int)(strlen(d->r.transport) + 1 + strlen(d->r.nexthop));
		if (d->r.source[0] != '\0')
			n += (int)(strlen(d->r.source) + 2);
		if (n > width)
			width = n;
	}
	status_ago(k->counts_since, now, ago, sizeof(ago));
	fprintf(fp, "recipients since %s ago\n", ago);
	fprintf(fp, "%-*s %9s %8s %7s %6s %4s %6s %6s %7s %8s %-9s %s\n", width,
	    "destination", "delivered", "deferred", "bounced", "window", "busy",
	    "pos_fb", "neg_fb", "cohorts", "dead", "tls", "last error");
	for (i = 0; i < k->ndests; i++) {
		d = &k->dests[i];
		/* "smtp:x.org", or "smtp:192.0.2.7->x.org" from a pool's
		 * address: fits, the sizes are the record's */
		(void)spool_dest_key(name, sizeof(name), d->r.transport,
		    d->r.nexthop, d->r.source);
		if (d->r.ds.dead)
			snprintf(dead, sizeof(dead), "%llds",
			    status_dead_in(&d->r, now));
		else
			(void)strlcpy(dead, "-", sizeof(dead));
		fprintf(fp,
		    "%-*s %9llu %8llu %7llu %6d %4d %6.3f %6.3f %7.3f %8s "
		    "%-9s ",
		    width, name, (unsigned long long)d->r.delivered,
		    (unsigned long long)d->r.deferred,
		    (unsigned long long)d->r.bounced, d->r.ds.window, d->busy,
		    d->r.ds.success, d->r.ds.failure, d->r.ds.fail_cohorts,
		    dead, spool_dest_tls_name(d->r.tls));
		if (d->r.last_error[0]) {
			status_ago(d->r.error_at, now, ago, sizeof(ago));
			fprintf(fp, "%s ago: %s\n", ago, d->r.last_error);
		} else
			fprintf(fp, "-\n");
	}
}

/* status_json_dests - the destination table as a JSON array member */
static void
status_json_dests(const struct counts *k, time_t now, FILE *fp)
{
	const struct dest_row *d;
	size_t i;

	if (k->counts_since > 0)
		fprintf(
		    fp, ",\"counts_since\":%lld", (long long)k->counts_since);
	else
		fprintf(fp, ",\"counts_since\":null");
	fprintf(fp, ",\"destinations\":[");
	for (i = 0; i < k->ndests; i++) {
		d = &k->dests[i];
		fprintf(fp, "%s{\"transport\":", i ? "," : "");
		json_out_str(fp, d->r.transport);
		fprintf(fp, ",\"nexthop\":");
		json_out_str(fp, d->r.nexthop);
		fprintf(fp,
		    ",\"delivered\":%llu,\"deferred\":%llu,\"bounced\":%llu,"
		    "\"window\":%d,\"busy\":%d,\"positive_feedback\":%.4f,"
		    "\"negative_feedback\":%.4f,\"fail_cohorts\":%.4f,"
		    "\"dead\":%s,",
		    (unsigned long long)d->r.delivered,
		    (unsigned long long)d->r.deferred,
		    (unsigned long long)d->r.bounced, d->r.ds.window, d->busy,
		    d->r.ds.success, d->r.ds.failure, d->r.ds.fail_cohorts,
		    d->r.ds.dead ? "true" : "false");
		if (d->r.ds.dead)
			fprintf(fp, "\"dead_until\":%lld,\"dead_in\":%lld,",
			    (long long)d->r.ds.dead_until,
			    status_dead_in(&d->r, now));
		else
			fprintf(fp, "\"dead_until\":null,\"dead_in\":null,");
		/* tls: the last session's state; null before any */
		fprintf(fp, "\"tls\":");
		if (d->r.tls != SPOOL_DEST_TLS_UNKNOWN)
			json_out_str(fp, spool_dest_tls_name(d->r.tls));
		else
			fprintf(fp, "null");
		fprintf(fp, ",\"last_error\":");
		if (d->r.last_error[0]) {
			json_out_str(fp, d->r.last_error);
			fprintf(fp, ",\"last_error_at\":%lld",
			    (long long)d->r.error_at);
		} else
			fprintf(fp, "null,\"last_error_at\":null");
		/* source: the local address of a sending pool, last; only
		 * then, so that the rows of a host without pools stay as
		 * they were */
		if (d->r.source[0] != '\0') {
			fprintf(fp, ",\"source\":");
			json_out_str(fp, d->r.source);
		}
		fprintf(fp, "}");
	}
	fprintf(fp, "]");
}

/* status_text_incidents - the open incidents, one line each: a
 * destination refusing a share of a list's posts (state/incidents) */
static void
status_text_incidents(const struct counts *k, time_t now, FILE *fp)
{
	const struct spool_incident *in;
	size_t i;

	for (i = 0; i < k->nincidents; i++) {
		in = &k->incidents[i];
		fprintf(fp,
		    "incident: %s at %s: %s, %lld of %lld recipients, since "
		    "%llds, last %llds ago: %s\n",
		    in->list, in->dest, in->class, in->count, in->total,
		    (long long)now - in->since, (long long)now - in->last,
		    in->reply);
	}
}

/* status_json_incidents - ,"incidents":[...] */
static void
status_json_incidents(const struct counts *k, time_t now, FILE *fp)
{
	const struct spool_incident *in;
	size_t i;

	fprintf(fp, ",\"incidents\":[");
	for (i = 0; i < k->nincidents; i++) {
		in = &k->incidents[i];
		fprintf(fp, "%s{\"list\":", i ? "," : "");
		json_out_str(fp, in->list);
		fprintf(fp, ",\"destination\":");
		json_out_str(fp, in->dest);
		fprintf(fp, ",\"class\":");
		json_out_str(fp, in->class);
		fprintf(fp,
		    ",\"count\":%lld,\"total\":%lld,\"since\":%lld,"
		    "\"last_age\":%lld,\"reply\":",
		    in->count, in->total, in->since, (long long)now - in->last);
		json_out_str(fp, in->reply);
		fprintf(fp, "}");
	}
	fprintf(fp, "]");
}

/* status_text - the human table; online 0: the server is not running,
 * the spool and the destinations only */
static void
status_text(const struct qs *qs, const struct counts *k, int online, FILE *fp)
{
	char err[PATH_MAX + 200];
	time_t now = time(NULL);
	const struct slot *sl;
	size_t i;

	if (!online)
		fprintf(fp, "server: not running; runners: none\n");
	else
		fprintf(fp,
		    "server: pid %ld, up %llds, %llu pokes, runners %d of %lld "
		    "(min %lld)\n",
		    (long)qs->pid, (long long)(now - qs->started_wall),
		    qs->pokes, queueserv_pool_live(qs),
		    qs->s.queueserv_max_runners, qs->s.queueserv_min_runners);
	if (online)
		fprintf(fp, "%-5s %-8s %-10s %8s %8s %8s\n", "slot", "pid",
		    "state", "in-hand", "done", "uptime");
	for (i = 0; online && i < qs->nslots; i++) {
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
	for (i = 0; i < k->nheld; i++)
		fprintf(fp, "held: %s@%s %ld\n", k->held[i].list,
		    k->held[i].domain, k->held[i].n);
	status_text_dests(k, now, fp);
	queueserv_sts_text(qs->s.spool_dir, clock_now(), fp);
	status_text_incidents(k, now, fp);
	queueserv_lists_text(k, fp);
	queueserv_cluster_text(qs, k, now, fp);
	for (i = 0; i < k->ndomains; i++)
		if (status_dkim(qs, k->domains[i], err, sizeof(err)))
			fprintf(fp, "dkim: %s: %s (its mail waits)\n",
			    k->domains[i], err);
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

/* status_json - the same, for monitoring: one JSON object ("server":
 * null and no runners when it is not running) */
static void
status_json(const struct qs *qs, const struct counts *k, int online, FILE *fp)
{
	char err[PATH_MAX + 200];
	time_t now = time(NULL);
	const struct slot *sl;
	const char *sep = "";
	size_t i;

	if (!online)
		fprintf(fp, "{\"server\":null,\"runners\":[");
	else
		fprintf(fp,
		    "{\"server\":{\"pid\":%ld,\"uptime\":%lld,"
		    "\"pokes\":%llu,\"runners\":%d,\"min_runners\":%lld,"
		    "\"max_runners\":%lld},\"runners\":[",
		    (long)qs->pid, (long long)(now - qs->started_wall),
		    qs->pokes, queueserv_pool_live(qs),
		    qs->s.queueserv_min_runners, qs->s.queueserv_max_runners);
	for (i = 0; online && i < qs->nslots; i++) {
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
	fprintf(fp, "],\"held_lists\":[");
	for (i = 0; i < k->nheld; i++)
		fprintf(fp,
		    "%s{\"list\":\"%s\",\"domain\":\"%s\",\"held\":%ld}",
		    i ? "," : "", k->held[i].list, k->held[i].domain,
		    k->held[i].n);
	fprintf(fp, "]}");
	status_json_dests(k, now, fp);
	queueserv_sts_json(qs->s.spool_dir, clock_now(), fp);
	fprintf(fp, ",\"dkim_errors\":[");
	for (i = 0, sep = ""; i < k->ndomains; i++)
		if (status_dkim(qs, k->domains[i], err, sizeof(err))) {
			fprintf(fp, "%s{\"domain\":", sep);
			json_out_str(fp, k->domains[i]);
			fprintf(fp, ",\"error\":");
			json_out_str(fp, err);
			fprintf(fp, "}");
			sep = ",";
		}
	fprintf(fp, "]");
	status_json_incidents(k, now, fp);
	queueserv_lists_json(k, fp);
	queueserv_cluster_json(qs, k, now, fp);
	fprintf(fp, "}\n");
}

/* status_emit - the counts, as text, JSON or Prometheus text, into fp; -1 when
 * the spool could not be read (said in the output) */
static int
status_emit(const struct qs *qs, FILE *fp, int format, int online)
{
	struct counts k;
	int r = 0;

	if (status_spool(qs, &k) == -1 || status_dests(qs, &k) == -1 ||
	    spool_incident_list(qs->s.spool_dir, time(NULL), &k.incidents,
		&k.nincidents) == -1 ||
	    queueserv_lists_load(&qs->s, &k) == -1) {
		fprintf(
		    fp, "error: cannot read the spool %s\n", qs->s.spool_dir);
		r = -1;
	} else if (format == QS_STATUS_PROM)
		queueserv_prom(qs, &k, fp);
	else if (format == QS_STATUS_JSON)
		status_json(qs, &k, online, fp);
	else
		status_text(qs, &k, online, fp);
	queueserv_lists_free(&k);
	free(k.incidents);
	free(k.held);
	free(k.tiers);
	free(k.dests);
	while (k.ndomains > 0)
		free(k.domains[--k.ndomains]);
	free(k.domains);
	return r;
}

/* queueserv_status_write - the whole reply, ended by an empty line */
int
queueserv_status_write(const struct qs *qs, int fd, int format)
{
	FILE *fp;
	int dfd, r;

	if ((dfd = dup(fd)) == -1)
		return -1;
	if ((fp = fdopen(dfd, "w")) == NULL) {
		close(dfd);
		return -1;
	}
	(void)status_emit(qs, fp, format, 1);
	fprintf(fp, "\n");
	r = ferror(fp) ? -1 : 0;
	if (fclose(fp) == EOF)
		r = -1;
	return r;
}

/* queueserv_status_offline - status with no server to ask: the spool and
 * the destination table as this process can read them, on stdout; -1
 * when it cannot read the spool */
int
queueserv_status_offline(const struct qs *qs, int format)
{
	int r = status_emit(qs, stdout, format, 0);

	if (fflush(stdout) == EOF)
		r = -1;
	return r;
}
