/*
 * bounce.c - bounces to <list>-owner: each failed address judged by its
 * cause (lists/bounce_class.c) and counted slowly against the subscriber
 * (lists/bounce_score.c): at most one count a day, its strongest class,
 * weighed by the list's bounce_weight_* keys (recipient 1.0, mailbox
 * 0.5; policy, transient and unknown failures weigh nothing and are only
 * logged).  When the score within bounce_max_age reaches
 * bounce_score_threshold the subscriber is taken off the list and the
 * owners are told.
 *
 * Only subscribers are counted, so a forged bounce can at worst add one
 * count a day; a bounce that names no address is forwarded to the owners
 * like other owner mail, and so is a report naming more addresses than
 * bounce_parse keeps (counted for those it keeps).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bounce.h"
#include "listfn_clock.h"
#include "listfn_list.h"
#include "listfn_state.h"
#include "log.h"
#include "listfn_msg.h"
#include "reply.h"
#include "lists.h"

/* bounce_rule - the list's weights, threshold and age of counts */
static void
bounce_rule(const struct listconf *lc, struct bounce_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	rule->weight[BOUNCE_RECIPIENT] = lc->bounce_weight_recipient;
	rule->weight[BOUNCE_MAILBOX] = lc->bounce_weight_mailbox;
	rule->threshold = lc->bounce_threshold;
	rule->max_age = lc->bounce_max_age;
}

/* bounce_remove - enough bounces: off the list, and the owners told */
static int
bounce_remove(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *addr, long long score)
{
	char from[SPOOL_ADDR_MAX + 1], **v;
	struct reply_set rs;
	struct reply *to;
	size_t n, i;
	int ok = 0;

	if (subs_edit(env->s, m->domain, m->list, SUBS_REMOVE, addr) == -1)
		return -1;
	log_notice(
	    "%s: <%s> unsubscribed from %s@%s at bounce score %lld.%02lld",
	    m->name, addr, m->list, m->domain, score / 100, score % 100);
	snprintf(from, sizeof(from), "%s-request@%s", m->list, m->domain);
	reply_init(&rs, from, "", "");
	if (listconf_split(lc->owners, &v, &n) == -1)
		return -1;
	for (i = 0; i < n && ok == 0; i++) {
		if ((to = reply_for(&rs, v[i])) == NULL) {
			ok = -1;
			break;
		}
		to->notice = 1;
		fprintf(to->fp,
		    "<%s> has been removed from %s@%s: mail to it bounced\n"
		    "on enough days to reach a score of %lld.%02lld within "
		    "%lld\n"
		    "day(s) (bounce_score_threshold, bounce_weight_recipient,\n"
		    "bounce_weight_mailbox, bounce_max_age in the list's "
		    "config).\n",
		    addr, m->list, m->domain, score / 100, score % 100,
		    lc->bounce_max_age / 86400);
	}
	listconf_free_vec(v, n);
	if (ok == 0)
		ok = reply_commit(env, m, &rs);
	reply_free(&rs);
	return ok;
}

/* bounce_process - owner mail that is a bounce: count it; 1 when it is
 * not one (forward it), 0 done (state file made), -1 try again later */
int
bounce_process(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	struct bounce_found bf;
	struct bounce_rule rule;
	struct listconf lc;
	long long score;
	size_t i;
	int member, r;

	bounce_parse(m->domain, m->list, text, len, &bf);
	if (!bf.is_bounce || (bf.n == 0 && !bf.delayed))
		return 1;
	if ((r = listfn_list_conf(env, m, &lc)) != 0)
		return r;
	bounce_rule(&lc, &rule);
	if (bf.delayed)
		log_info("%s: delivery delay warning, not counted", m->name);
	for (i = 0; i < bf.n; i++) {
		if (rule.weight[bf.class[i]] == 0) {
			log_info(
			    "%s: bounce for <%s> on %s@%s: %s, not counted",
			    m->name, bf.addr[i], m->list, m->domain,
			    bounce_class_name(bf.class[i]));
			continue;
		}
		if ((member = subs_edit_member(
			 env->s, m->domain, m->list, bf.addr[i])) == -1)
			return -1;
		if (!member) {
			log_info("%s: bounce for <%s>, not a subscriber of %s",
			    m->name, bf.addr[i], m->list);
			continue;
		}
		if ((r = bounce_score_add(env->s, m->domain, m->list,
			 bf.addr[i], bf.class[i], listfn_now(), &rule,
			 &score)) == -1) {
			log_warn("%s: cannot count the bounce of <%s>", m->name,
			    bf.addr[i]);
			return -1;
		}
		log_info("%s: bounce for <%s> on %s@%s: %s, %s, score "
			 "%lld.%02lld of %lld.%02lld",
		    m->name, bf.addr[i], m->list, m->domain,
		    bounce_class_name(bf.class[i]),
		    r == 1 ? "counted" : "already counted today", score / 100,
		    score % 100, rule.threshold / 100, rule.threshold % 100);
		if (r == 1 && rule.threshold > 0 && score >= rule.threshold &&
		    bounce_remove(env, m, &lc, bf.addr[i], score) == -1)
			return -1;
	}
	if (bf.more > 0) {
		/* Never dropped unseen: the owners get the report. */
		log_warn("%s: bounce names %zu addresses more than the %d "
			 "counted; forwarded to the owners",
		    m->name, bf.more, BOUNCE_ADDRS_MAX);
		return 1;
	}
	return listfn_state_empty(env, m, "bounce", "");
}
