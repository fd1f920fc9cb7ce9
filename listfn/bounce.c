/*
 * bounce.c - bounces to <list>-owner: each failed address judged by its
 * cause (lists/bounce_class.c) and counted slowly against the subscriber
 * (lists/bounce_score.c): at most one count a day, its strongest class,
 * weighed by the list's bounce_weight_* keys (recipient 1.0, mailbox
 * 0.5; policy, transient and unknown failures weigh nothing and are only
 * logged).  When the score within bounce_max_age reaches
 * bounce_score_threshold the subscriber's delivery is disabled and
 * probed (bounce_probe.c); the bounce of a probe goes there too.
 *
 * Auto-replies (lists/autoreply.c) are no bounces: logged and dropped,
 * never counted nor forwarded.
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
#include "bounce_count.h"
#include "bounce_complaint.h"
#include "bounce_probe.h"
#include "listfn_clock.h"
#include "listfn_list.h"
#include "listfn_state.h"
#include "log.h"
#include "listfn_msg.h"
#include "reply.h"
#include "lists.h"

/* bounce_rule_of - the list's weights, threshold and age of counts */
void
bounce_rule_of(const struct listconf *lc, struct bounce_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	rule->weight[BOUNCE_RECIPIENT] = lc->bounce_weight_recipient;
	rule->weight[BOUNCE_MAILBOX] = lc->bounce_weight_mailbox;
	rule->threshold = lc->bounce_threshold;
	rule->max_age = lc->bounce_max_age;
}

/* bounce_answer - owner mail to a probe's address that is no bounce:
 * the subscriber's answer, which enables it again (bounce_probe.c); 0
 * done, 1 no probe out has the token (forwarded to the owners like
 * other owner mail: nothing changes), -1 try again later */
static int
bounce_answer(struct listfn_env *env, struct listfn_msg *m, const char *token)
{
	char addr[NAME_ADDR_MAX + 1];
	struct listconf lc;
	int r;

	if ((r = listfn_list_conf(env, m, &lc)) != 0 ||
	    (r = bounce_probe_answer(
		 env, m, m->list, token, "a reply", addr, sizeof(addr))) != 1)
		return r == 0 ? 1 : r;
	if (bounce_owners_tell(env, m, &lc,
		"Delivery to <%s> on %s@%s is enabled again: it answered\n"
		"a probe.\n",
		addr, m->list, m->domain) == -1)
		return -1;
	return listfn_state_empty(env, m, "probe-answer", "");
}

/* bounce_of_probe - owner mail to a probe's address: the subscriber's
 * answer, an auto-reply, or a report on the probe (bounce_probe.c); 0
 * done, 1 forward it, -1 try again later */
static int
bounce_of_probe(struct listfn_env *env, struct listfn_msg *m,
    const struct bounce_found *bf, int autoreply)
{
	size_t judged[BOUNCE_CLASSES] = {0};
	struct listconf lc;
	int r;

	if (!bf->is_bounce && !autoreply)
		return bounce_answer(env, m, bf->probe);
	if ((r = listfn_list_conf(env, m, &lc)) != 0 ||
	    (r = bounce_probe_report(env, m, &lc, bf, autoreply, judged)) != 0)
		return r;
	bounce_count(env, m, judged, 0);
	return listfn_state_empty(
	    env, m, autoreply ? "autoreply" : "bounce", "");
}

/* bounce_process - owner mail that is a bounce: count it; 1 when it is
 * not one (forward it), 0 done (state file made), -1 try again later */
int
bounce_process(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	size_t i, judged[BOUNCE_CLASSES] = {0};
	struct bounce_found bf;
	struct bounce_rule rule;
	struct listconf lc;
	long long score;
	int member, autoreply, r;

	if ((r = bounce_complaint(env, m, text, len)) != 1)
		return r == 2 ? 1 : r;
	bounce_parse(m->domain, m->list, text, len, &bf);
	autoreply = autoreply_is(text, len);
	if (bf.probe[0] != '\0')
		return bounce_of_probe(env, m, &bf, autoreply);
	if (autoreply) {
		log_info(
		    "%s: an auto-reply, not a bounce: not counted", m->name);
		return listfn_state_empty(env, m, "autoreply", "");
	}
	if (!bf.is_bounce || (bf.n == 0 && !bf.delayed))
		return 1;
	if ((r = listfn_list_conf(env, m, &lc)) != 0)
		return r;
	bounce_rule_of(&lc, &rule);
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
		/* a report may name any envelope recipient; only an address
		 * of the one grammar (names.h) can be a subscriber */
		if (!name_addr_ok(bf.addr[i]))
			member = 0;
		else if ((member = subs_edit_member(
			      env->s, m->domain, m->list, bf.addr[i])) == -1)
			return -1;
		if (!member) {
			log_info("%s: bounce for <%s> on %s@%s: %s, not a "
				 "subscriber of %s",
			    m->name, bf.addr[i], m->list, m->domain,
			    bounce_class_name(bf.class[i]), m->list);
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
		    bounce_probe_disable(env, m, &lc, bf.addr[i], score) == -1)
			return -1;
	}
	for (i = 0; i < bf.n; i++)
		judged[bf.class[i]]++;
	if (bf.more > 0) {
		/* Never dropped unseen: the owners get the report; their
		 * forward settles the count (bounce_count_once). */
		(void)bounce_count_once(env, m, judged, 0);
		log_warnx("%s: bounce names %zu addresses more than the %d "
			  "counted; forwarded to the owners",
		    m->name, bf.more, BOUNCE_ADDRS_MAX);
		return 1;
	}
	bounce_count(env, m, judged, 0);
	return listfn_state_empty(env, m, "bounce", "");
}
