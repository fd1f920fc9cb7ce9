/*
 * queueserv_status.h - what "status" counts (queueserv_status.c), shared
 * with its Prometheus form (queueserv_prom.c).
 */
#ifndef MJQ_QUEUESERV_STATUS_H
#define MJQ_QUEUESERV_STATUS_H

#include <stdio.h>
#include <time.h>

#include "names.h"
#include "queueserv.h"
#include "spool_dest.h"
#include "spool_incident.h"

/* The counters of one priority tier (or of them all). */
struct tier {
	int dprio, lprio;
	long outstanding, due, deferred, held, bad;
};

/* One row of the destination table, copied out of the shared map. */
struct dest_row {
	struct spool_dest_rec r;
	int busy; /* locks held: exact, whoever died */
};

/* Messages in HOLD/ for one list. */
struct held_list {
	char domain[NAME_DOMAIN_MAX + 1];
	char list[NAME_LIST_MAX + 1];
	long n;
};

struct counts {
	struct dest_row *dests;
	size_t ndests;
	struct tier *tiers;
	size_t ntiers;
	struct tier total;
	struct held_list *held; /* sorted by domain, then list */
	size_t nheld;
	time_t now;
	time_t oldest;	     /* 0: none */
	double counts_since; /* the destinations' counts start here */
	int failed;
	char **domains; /* of the outstanding mail, for the DKIM check */
	size_t ndomains;
	struct spool_incident *incidents; /* open, state/incidents */
	size_t nincidents;
	int cluster;		 /* [cluster] as the runners last saw it */
	long long cluster_since; /* (spool_dest.h's header) */
};

/* queueserv_json_str - a JSON string (queueserv_json.c) */
void queueserv_json_str(FILE *fp, const char *s);

/* queueserv_cluster.c: [cluster], shared or on local shares */
void queueserv_cluster_text(
    const struct qs *qs, const struct counts *k, time_t now, FILE *fp);
void queueserv_cluster_json(
    const struct qs *qs, const struct counts *k, time_t now, FILE *fp);
/* queueserv_cluster_state - "shared", "local" (Redis unreachable: this
 * node's shares) or "unused" (no delivery yet), NULL when [cluster] is
 * off; *node: this node's name */
const char *queueserv_cluster_state(
    const struct qs *qs, const struct counts *k, const char **node);

/* queueserv_sts.c: the MTA-STS policies in force */
void queueserv_sts_text(const char *spool, double now, FILE *fp);
void queueserv_sts_json(const char *spool, double now, FILE *fp);

/* queueserv_prom.c */
void queueserv_prom(const struct qs *qs, const struct counts *k, FILE *fp);

#endif
