/*
 * queueserv_status.h - what "status" counts (queueserv_status.c), shared
 * with its Prometheus form (queueserv_prom.c).
 */
#ifndef MJQ_QUEUESERV_STATUS_H
#define MJQ_QUEUESERV_STATUS_H

#include <stdio.h>
#include <time.h>

#include "json_out.h"
#include "names.h"
#include "queueserv.h"
#include "lists.h"
#include "spool_bounce_count.h"
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

/* One list's bounce handling (queueserv_lists.c). */
struct list_row {
	char list[NAME_ADDR_MAX + 1]; /* list@domain */
	char domain[NAME_DOMAIN_MAX + 1];
	unsigned long long judged[SPOOL_BOUNCE_CLASSES]; /* per class */
	unsigned long long complaints;
	struct subs_disabled *off; /* disabled addresses, by address */
	size_t noff;
	size_t incidents; /* open */
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
	struct list_row *lists; /* walk order, gone lists last */
	size_t nlists;
	int cluster;		 /* [cluster] as the runners last saw it */
	long long cluster_since; /* (spool_dest.h's header) */
};

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

/* queueserv_lists.c: each list's bounce handling */
int queueserv_lists_load(const struct settings *s, struct counts *k);
void queueserv_lists_free(struct counts *k);
void queueserv_lists_text(const struct counts *k, FILE *fp);
void queueserv_lists_json(const struct counts *k, FILE *fp);
const char *queueserv_lists_class(size_t c);

/* queueserv_prom.c */
void queueserv_prom(const struct qs *qs, const struct counts *k, FILE *fp);

#endif
