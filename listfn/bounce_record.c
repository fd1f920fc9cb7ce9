/*
 * bounce_record.c - a list post's failures, judged where they happen.
 *
 * The runner hears every SMTP reply itself.  For a post of a list
 * (function list, kind post, from <list>-owner) whose list has
 * bounce_judge = yes (the default) it makes no DSN to <list>-owner to be
 * read back through the MTA: each failed recipient of
 * the pass's fail log (every one, FAIL_BATCH_MAX per batch, none dropped)
 * is judged by its enhanced status code and reply (lists/bounce_class.c)
 * and counted like an incoming bounce (lists/bounce_score.c: one count a
 * day, weighed by class; the threshold disables, bounce_probe.c).  The
 * classes of a batch are logged in one line, and a destination that
 * refused a large share of the post at once is an incident
 * (bounce_incident.c).  When a count cannot be
 * written (the lists directory read-only to the runner, a lock held past
 * its wait) the batch gets its DSN after all: nothing is lost, and a
 * failure counted today is not counted again when the DSN comes back.  Failures
 * reported later by a relay that accepted the post still come back as DSNs to
 * the VERP or owner address (bounce.c).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bounce.h"
#include "bounce_count.h"
#include "bounce_incident.h"
#include "bounce_probe.h"
#include "bounce_record.h"
#include "listfn_clock.h"
#include "listfn_msg.h"
#include "lists.h"
#include "log.h"

/* record_mine - a post of m's list, from its owner address */
static int
record_mine(const struct listfn_msg *m)
{
	char owner[SPOOL_ADDR_MAX + 1];

	if (m->function != SPOOL_FN_LIST || strcmp(m->st.kind, "post") != 0)
		return 0;
	snprintf(owner, sizeof(owner), "%s-owner@%s", m->list, m->domain);
	return strcasecmp(m->st.sender, owner) == 0;
}

/* record_one - count one failed subscriber of class; -1 error */
static int
record_one(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const struct bounce_rule *rule, const char *addr,
    enum bounce_class class)
{
	long long score;
	int r;

	if ((r = bounce_score_add(env->s, m->domain, m->list, addr, class,
		 listfn_now(), rule, &score)) == -1) {
		log_warn("%s: cannot count the failure of <%s>", m->name, addr);
		return -1;
	}
	log_info("%s: failure of <%s> on %s@%s: %s, %s, score %lld.%02lld of "
		 "%lld.%02lld",
	    m->name, addr, m->list, m->domain, bounce_class_name(class),
	    r == 1 ? "counted" : "already counted today", score / 100,
	    score % 100, rule->threshold / 100, rule->threshold % 100);
	if (r == 1 && rule->threshold > 0 && score >= rule->threshold)
		return bounce_probe_disable(env, m, lc, addr, score);
	return 0;
}

/* bounce_record - judge and count a batch of m's failed recipients */
int
bounce_record(
    struct listfn_env *env, struct listfn_msg *m, const struct fail_batch *b)
{
	static __thread enum bounce_class cls[FAIL_BATCH_MAX];
	size_t i, n[BOUNCE_CLASSES] = {0};
	const struct fail_rec *f;
	struct bounce_rule rule;
	enum bounce_class c;
	struct listconf lc;
	char err[512];

	if (!record_mine(m))
		return 1;
	/* Not listfn_list_conf: a list gone meanwhile moves nothing aside
	 * here, its post is finished; the DSN is made as for any message */
	if (listconf_load(env->s, m->domain, m->list, &lc, err, sizeof(err)) ==
	    -1) {
		log_warnx("%s: list %s@%s: %s: a DSN instead", m->name, m->list,
		    m->domain, err);
		return 1;
	}
	if (!lc.bounce_judge)
		return 1;
	bounce_rule_of(&lc, &rule);
	for (i = 0; i < b->n; i++) {
		f = &b->rec[i];
		c = cls[i] =
		    bounce_class_reply(f->diag, strlen(f->diag), f->dsn);
		n[c]++;
		if (rule.weight[c] == 0 ||
		    strcasecmp(f->addr, m->archive_rcpt) == 0)
			continue;
		if (record_one(env, m, &lc, &rule, f->addr, c) == -1) {
			/* Never wedged or lost: the DSN carries them all,
			 * and what was counted today is not counted twice */
			log_warnx("%s: failures of %s@%s not counted here: a "
				  "DSN to <%s> instead",
			    m->name, m->list, m->domain, m->st.sender);
			return 1;
		}
	}
	bounce_count(env, m, n, 0);
	/* an incident is told, not counted: its failures weigh nothing */
	(void)bounce_incident(env, m, &lc, b, cls);
	log_info("%s: %zu failed recipient(s) of %s@%s judged: recipient %zu, "
		 "mailbox %zu, policy %zu, transient %zu, unknown %zu",
	    m->name, b->n, m->list, m->domain, n[BOUNCE_RECIPIENT],
	    n[BOUNCE_MAILBOX], n[BOUNCE_POLICY], n[BOUNCE_TRANSIENT],
	    n[BOUNCE_UNKNOWN]);
	return 0;
}
