/*
 * queueserv_prom.c - "status -p": the status in the Prometheus text
 * exposition format (version 0.0.4), for node_exporter's textfile
 * collector or a scrape wrapper:
 *
 *   mjq_messages{state,domain_prio,list_prio}   gauge, per tier
 *   mjq_held_messages{domain,list}              gauge, HOLD/ per list
 *   mjq_oldest_message_age_seconds              gauge (0: none)
 *   mjq_destination_window/_busy/_dead{transport,nexthop[,source]} gauges
 *   mjq_bounce_incidents, _incident_recipients{list,destination,class}
 *   mjq_bounce_failures_total{list,class}        counter, judged failures
 *   mjq_complaints_total{list}                  counter, ARF abuse reports
 *   mjq_disabled_subscribers{list}              gauge
 *   mjq_list_incidents{list}                    gauge, open incidents
 *   mjq_runners, mjq_runners_max                gauges
 *   mjq_runner_restarts_total, mjq_pokes_total  counters since start
 *   mjq_server_start_time_seconds               gauge
 *
 * Every family has its HELP and TYPE lines; label values are escaped
 * (backslash, double quote, newline) as the format requires.
 */
#include <stdio.h>
#include <string.h>

#include "queueserv.h"
#include "queueserv_status.h"

/* prom_family - the HELP and TYPE lines of one metric */
static void
prom_family(FILE *fp, const char *name, const char *type, const char *help)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* prom_label - name="value", the value escaped */
static void
prom_label(FILE *fp, const char *name, const char *value)
{
	fprintf(fp, "%s=\"", name);
	for (; *value != '\0'; value++) {
		if (*value == '\\' || *value == '"')
			fprintf(fp, "\\%c", *value);
		else if (*value == '\n')
			fputs("\\n", fp);
		else
			fputc(*value, fp);
	}
	fputc('"', fp);
}

/* prom_tiers - messages per state and tier */
static void
prom_tiers(const struct counts *k, FILE *fp)
{
	static const char *const states[] = {
	    "due", "deferred", "held", "quarantined"};
	const struct tier *t;
	size_t i, s;
	long v;

	prom_family(fp, "mjq_messages", "gauge",
	    "Messages in the spool by state (due, deferred: QUEUE/; held: "
	    "HOLD/; quarantined: BAD/) and priority tier.");
	for (i = 0; i < k->ntiers; i++) {
		t = &k->tiers[i];
		for (s = 0; s < 4; s++) {
			v = s == 0   ? t->due
			    : s == 1 ? t->deferred
			    : s == 2 ? t->held
				     : t->bad;
			fprintf(fp,
			    "mjq_messages{state=\"%s\",domain_prio=\"%02d\","
			    "list_prio=\"%02d\"} %ld\n",
			    states[s], t->dprio, t->lprio, v);
		}
	}
}

/* prom_held - held messages per list */
static void
prom_held(const struct counts *k, FILE *fp)
{
	size_t i;

	prom_family(fp, "mjq_held_messages", "gauge",
	    "Messages in HOLD/ per list (moderation and operator holds).");
	for (i = 0; i < k->nheld; i++) {
		fputs("mjq_held_messages{", fp);
		prom_label(fp, "domain", k->held[i].domain);
		fputc(',', fp);
		prom_label(fp, "list", k->held[i].list);
		fprintf(fp, "} %ld\n", k->held[i].n);
	}
}

/* prom_dest - "name{transport=...,nexthop=..." of one destination's
 * sample, with source=... when it is sent from a pool's address, the
 * caller adding any other label, "}" and the value */
static void
prom_dest(FILE *fp, const char *name, const struct dest_row *d)
{
	fprintf(fp, "%s{", name);
	prom_label(fp, "transport", d->r.transport);
	fputc(',', fp);
	prom_label(fp, "nexthop", d->r.nexthop);
	if (d->r.source[0] != '\0') {
		fputc(',', fp);
		prom_label(fp, "source", d->r.source);
	}
}

/* prom_dests - window, busy and dead per destination */
static void
prom_dests(const struct counts *k, FILE *fp)
{
	static const char *const names[] = {"mjq_destination_window",
	    "mjq_destination_busy", "mjq_destination_dead"};
	static const char *const helps[] = {
	    "Concurrency window of the destination, shared by all runners.",
	    "Deliveries in flight to the destination over all runners.",
	    "1 while the destination is declared dead."};
	const struct dest_row *d;
	size_t i, m;
	int v;

	for (m = 0; m < 3; m++) {
		prom_family(fp, names[m], "gauge", helps[m]);
		for (i = 0; i < k->ndests; i++) {
			d = &k->dests[i];
			v = m == 0   ? d->r.ds.window
			    : m == 1 ? d->busy
				     : !!d->r.ds.dead;
			prom_dest(fp, names[m], d);
			fprintf(fp, "} %d\n", v);
		}
	}
}

/* prom_deliveries - recipients per destination and outcome since the
 * server started (the counts of the shared destination table) */
static void
prom_deliveries(const struct counts *k, FILE *fp)
{
	static const char *const outcome[] = {
	    "delivered", "deferred", "bounced"};
	const struct dest_row *d;
	size_t i, o;
	uint64_t v;

	prom_family(fp, "mjq_deliveries_total", "counter",
	    "Recipients delivered, deferred and bounced per destination "
	    "since the server started.");
	for (i = 0; i < k->ndests; i++)
		for (o = 0; o < 3; o++) {
			d = &k->dests[i];
			v = o == 0   ? d->r.delivered
			    : o == 1 ? d->r.deferred
				     : d->r.bounced;
			prom_dest(fp, "mjq_deliveries_total", d);
			fputc(',', fp);
			prom_label(fp, "outcome", outcome[o]);
			fprintf(fp, "} %llu\n", (unsigned long long)v);
		}
}

/* prom_incidents - the open incidents, and the recipients each refused
 * in the last post (state/incidents) */
static void
prom_incidents(const struct counts *k, FILE *fp)
{
	const struct spool_incident *in;
	size_t i;

	prom_family(fp, "mjq_bounce_incidents", "gauge",
	    "Open incidents: a destination refusing a large share of a list's "
	    "posts with one policy or transient failure.");
	fprintf(fp, "mjq_bounce_incidents %zu\n", k->nincidents);
	prom_family(fp, "mjq_bounce_incident_recipients", "gauge",
	    "Recipients of the last post an open incident refused.");
	for (i = 0; i < k->nincidents; i++) {
		in = &k->incidents[i];
		fprintf(fp, "mjq_bounce_incident_recipients{");
		prom_label(fp, "list", in->list);
		fputc(',', fp);
		prom_label(fp, "destination", in->dest);
		fputc(',', fp);
		prom_label(fp, "class", in->class);
		fprintf(fp, "} %lld\n", in->count);
	}
}

/* prom_row_complaints, prom_row_disabled, prom_row_incidents - one
 * number of a list's row */
static unsigned long long
prom_row_complaints(const struct list_row *r)
{
	return r->complaints;
}

static unsigned long long
prom_row_disabled(const struct list_row *r)
{
	return r->noff;
}

static unsigned long long
prom_row_incidents(const struct list_row *r)
{
	return r->incidents;
}

/* prom_per_list - a family with one sample per list, its value of */
static void
prom_per_list(const struct counts *k, FILE *fp, const char *name,
    const char *type, const char *help,
    unsigned long long (*of)(const struct list_row *))
{
	size_t i;

	prom_family(fp, name, type, help);
	for (i = 0; i < k->nlists; i++) {
		fprintf(fp, "%s{", name);
		prom_label(fp, "list", k->lists[i].list);
		fprintf(fp, "} %llu\n", of(&k->lists[i]));
	}
}

/* prom_lists - each list's failures judged per class, complaints,
 * disabled addresses and open incidents (queueserv_lists.c) */
static void
prom_lists(const struct counts *k, FILE *fp)
{
	const struct list_row *r;
	size_t i, c;

	prom_family(fp, "mjq_bounce_failures_total", "counter",
	    "Failed deliveries of a list's mail the runners judged, by class "
	    "(their own replies and the reports to <list>-owner).");
	for (i = 0; i < k->nlists; i++)
		for (c = 0, r = &k->lists[i]; c < SPOOL_BOUNCE_CLASSES; c++) {
			fprintf(fp, "mjq_bounce_failures_total{");
			prom_label(fp, "list", r->list);
			fputc(',', fp);
			prom_label(fp, "class", queueserv_lists_class(c));
			fprintf(fp, "} %llu\n", r->judged[c]);
		}
	prom_per_list(k, fp, "mjq_complaints_total", "counter",
	    "ARF abuse reports (complaints) a list's owner address took.",
	    prom_row_complaints);
	prom_per_list(k, fp, "mjq_disabled_subscribers", "gauge",
	    "Subscribers whose delivery is disabled after their bounces.",
	    prom_row_disabled);
	prom_per_list(k, fp, "mjq_list_incidents", "gauge",
	    "Open incidents of a list.", prom_row_incidents);
}

/* prom_cluster - [cluster]: limits shared in Redis, or local shares */
static void
prom_cluster(const struct qs *qs, const struct counts *k, FILE *fp)
{
	const char *state, *node;

	if ((state = queueserv_cluster_state(qs, k, &node)) == NULL)
		return;
	prom_family(fp, "mjq_cluster_shared", "gauge",
	    "1 while the limits are shared with the other nodes in Redis, 0 "
	    "while Redis cannot be reached and this node keeps its share.");
	fprintf(fp, "mjq_cluster_shared{");
	prom_label(fp, "node", node);
	fprintf(fp, "} %d\n", strcmp(state, "local") != 0);
}

/* queueserv_prom - the whole exposition */
void
queueserv_prom(const struct qs *qs, const struct counts *k, FILE *fp)
{
	prom_tiers(k, fp);
	prom_held(k, fp);
	prom_family(fp, "mjq_oldest_message_age_seconds", "gauge",
	    "Age of the oldest message in QUEUE/ (0 when there is none).");
	fprintf(fp, "mjq_oldest_message_age_seconds %lld\n",
	    k->oldest != 0 ? (long long)(k->now - k->oldest) : 0LL);
	prom_dests(k, fp);
	prom_deliveries(k, fp);
	prom_incidents(k, fp);
	prom_lists(k, fp);
	prom_cluster(qs, k, fp);
	prom_family(fp, "mjq_runners", "gauge", "Runner processes alive.");
	fprintf(fp, "mjq_runners %d\n", queueserv_pool_live(qs));
	prom_family(fp, "mjq_runners_max", "gauge", "[queueserv] max_runners.");
	fprintf(fp, "mjq_runners_max %lld\n", qs->s.queueserv_max_runners);
	prom_family(fp, "mjq_runner_restarts_total", "counter",
	    "Runners that died (signal or error exit) and were replaced, "
	    "since the server started.");
	fprintf(fp, "mjq_runner_restarts_total %llu\n", qs->runner_deaths);
	prom_family(fp, "mjq_pokes_total", "counter",
	    "Pokes received since the server started.");
	fprintf(fp, "mjq_pokes_total %llu\n", qs->pokes);
	prom_family(fp, "mjq_server_start_time_seconds", "gauge",
	    "When the server started, in seconds since the epoch.");
	fprintf(fp, "mjq_server_start_time_seconds %lld\n",
	    (long long)qs->started_wall);
}
