/*
 * bounce_incident.c - one destination refusing a post is an incident.
 *
 * When, within one post, a destination (the recipients' domain) answers
 * at least bounce_incident_min of its recipients, and at least
 * bounce_incident_share percent of them, with the same policy or
 * transient failure, that is an incident: a blocklisting, a DMARC
 * rejection, a throttle.  Such failures count nothing against the
 * subscribers anyway (bounce_score weighs them 0); the incident is noted
 * in $spool/state/incidents (spool_incident.c), where mj_queueserv
 * status shows it until it clears (two days without it: a list posting
 * daily keeps one incident open), and the owners get
 * one notice per incident, naming the destination, the reply and the
 * count, not one per post.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounce_incident.h"
#include "bounce_probe.h"
#include "listfn_clock.h"
#include "listfn_msg.h"
#include "log.h"
#include "spool_incident.h"

/* A destination and class of the batch, and how many failed so. */
struct incident_group {
	const char *dest; /* into the batch's addresses */
	enum bounce_class class;
	const char *reply; /* the first one's */
	long long count, total;
};

struct incident_tally {
	struct incident_group *g;
	size_t n;
};

/* incident_domain - the domain of an address, or "" */
static const char *
incident_domain(const char *addr)
{
	const char *at = strrchr(addr, '@');

	return at != NULL ? at + 1 : "";
}

/* incident_total - spool_state_each's callback: the post's recipients
 * at each candidate destination */
static int
incident_total(void *arg, const struct spool_rcpt *rc)
{
	struct incident_tally *t = arg;
	const char *d = incident_domain(rc->addr);
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcasecmp(t->g[i].dest, d) == 0)
			t->g[i].total++;
	return 0;
}

/* incident_group - the batch's policy and transient failures, grouped;
 * only groups of at least min are kept */
static size_t
incident_group(const struct fail_batch *b, const enum bounce_class *class,
    long long min, struct incident_group *g)
{
	size_t i, k, n = 0, kept = 0;
	const char *d;

	for (i = 0; i < b->n; i++) {
		if (class[i] != BOUNCE_POLICY && class[i] != BOUNCE_TRANSIENT)
			continue;
		d = incident_domain(b->rec[i].addr);
		for (k = 0; k < n; k++)
			if (g[k].class == class[i] &&
			    strcasecmp(g[k].dest, d) == 0)
				break;
		if (k == n) {
			memset(&g[n], 0, sizeof(g[n]));
			g[n].dest = d, g[n].class = class[i];
			g[n++].reply = b->rec[i].diag;
		}
		g[k].count++;
	}
	for (i = 0; i < n; i++)
		if (g[i].count >= min)
			g[kept++] = g[i];
	return kept;
}

/* incident_note - one group that is an incident: noted, told if new */
static int
incident_note(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const struct incident_group *g)
{
	struct spool_incident in;
	const char *reply;
	int r;

	memset(&in, 0, sizeof(in));
	in.count = g->count, in.total = g->total;
	snprintf(in.list, sizeof(in.list), "%s@%s", m->list, m->domain);
	(void)strlcpy(in.dest, g->dest, sizeof(in.dest)); /* may cut */
	(void)strlcpy(in.class, bounce_class_name(g->class), sizeof(in.class));
	reply = g->reply;
	if (strncasecmp(reply, "smtp;", 5) == 0) /* a Diagnostic-Code's type */
		for (reply += 5; *reply == ' '; reply++)
			;
	(void)strlcpy(in.reply, reply, sizeof(in.reply)); /* may cut */
	if ((r = spool_incident_note(env->s->spool_dir, &in, listfn_now())) ==
	    -1) {
		log_warn(
		    "%s: cannot note the incident at %s", m->name, in.dest);
		return -1;
	}
	if (r == 0) {
		log_info("%s: incident at %s goes on: %lld of %lld recipients, "
			 "%s",
		    m->name, in.dest, in.count, in.total, in.class);
		return 0;
	}
	log_notice("%s: incident at %s for %s: %lld of %lld recipients, %s: "
		   "%s",
	    m->name, in.dest, in.list, in.count, in.total, in.class, in.reply);
	return bounce_owners_tell(env, m, lc,
	    "An incident: %s refused %lld of the %lld recipients there of a\n"
	    "post of %s with a %s failure:\n\n    %s\n\n"
	    "Nothing is counted against those subscribers: the refusal is\n"
	    "about the list server, not them.  mj_queueserv status shows the\n"
	    "incident until two days pass without it; you get no other\n"
	    "notice for it.\n",
	    in.dest, in.count, in.total, in.list, in.class, in.reply);
}

/* bounce_incident - the incidents of one batch */
int
bounce_incident(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const struct fail_batch *b,
    const enum bounce_class *class)
{
	struct incident_tally t;
	size_t i;
	int r = 0;

	if (b->n < (size_t)lc->bounce_incident_min)
		return 0;
	if ((t.g = calloc(b->n, sizeof(*t.g))) == NULL)
		return -1;
	if ((t.n = incident_group(b, class, lc->bounce_incident_min, t.g)) >
		0 &&
	    spool_state_each(&m->st,
		SPOOL_RCPT_BIT(SPOOL_RCPT_PENDING) |
		    SPOOL_RCPT_BIT(SPOOL_RCPT_DELIVERED) |
		    SPOOL_RCPT_BIT(SPOOL_RCPT_DEFERRED) |
		    SPOOL_RCPT_BIT(SPOOL_RCPT_BOUNCED) |
		    SPOOL_RCPT_BIT(SPOOL_RCPT_FAILED),
		incident_total, &t) == -1) {
		log_warn("%s: cannot read %s", m->name, m->st.path);
		r = -1;
	}
	for (i = 0; r == 0 && i < t.n; i++)
		if (t.g[i].count * 100 >=
			lc->bounce_incident_share * t.g[i].total &&
		    incident_note(env, m, lc, &t.g[i]) == -1)
			r = -1;
	free(t.g);
	return r;
}
