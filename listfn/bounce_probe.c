/*
 * bounce_probe.c - disable before removing.
 *
 * A subscriber whose bounce score reaches bounce_score_threshold is not
 * removed: its delivery is disabled (lists/subs_disabled.c: it stays in
 * subscribers, with why and when in subscribers.disabled, and posts skip
 * it), and the owners are told.  Then, each time a post of the list is
 * expanded (bounce_probe_due):
 *   1. a disabled address without a probe out, or whose last probe
 *      bounced bounce_probe_interval ago or more, gets a probe: a short
 *      note from the VERP address <list>-owner+probe-<token>@<domain>,
 *      each with its own token, at most bounce_probes of them;
 *   2. a probe whose bounce has not come back within
 *      bounce_probe_interval was delivered: the address is enabled
 *      again, the owners told.
 * Mail back to the probe's address (bounce_probe_report) marks it failed
 * only when it is a report that names the probe's address failed: a DSN
 * block with Action: failed, or a non-standard report's address line
 * (lists/bounce_parse.c); after the last probe failed the address is
 * removed and the owners told.  A probe bounced for a policy or
 * transient reason is not a failure, nor is an auto-reply (a vacation
 * notice says the mailbox took the probe: lists/autoreply.c), a delay
 * warning, or a report that does not name the address (forwarded to the
 * owners).  The probe is committed before its token is written: a crash
 * in between sends a second probe, never records one that was not sent.
 * Each read-decide-write of subscribers.disabled here (the probes due,
 * a probe's report, an answer, a disable) holds the list's probes' lock
 * (subs_disabled_hold) from the read to the write: two runners
 * expanding posts at once send one probe, and the token kept is the one
 * the probe carried; disabling an address that is already disabled
 * (late reports of older posts) changes nothing.
 * The subscriber may answer a probe (bounce_probe_answer): a reply to it
 * (its Reply-To is the probe's VERP address, and the owner function,
 * bounce.c, reads the token back from the envelope recipient) or the
 * mail command "enable <list> <token>" (request_cmd.c).  The token,
 * which only the probe carried, proves that it arrived: the address is
 * enabled at once.  An answer with another token (a stale or forged
 * one) changes nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bounce_probe.h"
#include "generate.h"
#include "listfn_clock.h"
#include "listfn_msg.h"
#include "log.h"
#include "reply.h"
#include "request_greet.h"

/* bounce_owners_tell - one notice to each owner of m's list, text as
 * printf */
int
bounce_owners_tell(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *fmt, ...)
{
	char from[SPOOL_ADDR_MAX + 1], **v;
	struct reply_set rs;
	struct reply *to;
	size_t n, i;
	va_list ap;
	int ok = 0;

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
		va_start(ap, fmt);
		vfprintf(to->fp, fmt, ap);
		va_end(ap);
	}
	listconf_free_vec(v, n);
	if (ok == 0)
		ok = reply_commit(env, m, &rs);
	reply_free(&rs);
	return ok;
}

/* probe_remove - every probe failed (or none is sent): off the list.
 * The goodbye text is not mailed to a mailbox that bounces (it would
 * only bounce again to <list>-owner): the owners are told instead. */
static int
probe_remove(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *addr, const char *why)
{
	if (subs_edit(env->s, env->ls, m->domain, m->list, SUBS_REMOVE, addr) ==
	    -1)
		return -1;
	log_notice("%s: <%s> unsubscribed from %s@%s: %s", m->name, addr,
	    m->list, m->domain, why);
	return bounce_owners_tell(env, m, lc,
	    "<%s> has been removed from %s@%s: mail to it bounced\n"
	    "(%s).\n%s",
	    addr, m->list, m->domain, why,
	    request_greet_has(env, m, lc, "goodbye")
		? "The list's goodbye text was not sent to it: mail to it "
		  "bounces.\n"
		: "");
}

/* The work done on the list's disabled lines under the probes' lock. */
typedef int probe_locked_fn(struct listfn_env *env, struct listfn_msg *m,
    const struct subs_disabled *v, size_t n, const void *arg);

/* probe_locked - fn on m's list's disabled lines, read under the
 * probes' lock and written by fn before it is let go */
static int
probe_locked(struct listfn_env *env, struct listfn_msg *m, probe_locked_fn *fn,
    const void *arg)
{
	struct subs_disabled *v;
	struct lockedit le;
	size_t n;
	int r;

	if (subs_disabled_hold(env->s, m->domain, m->list, &le) == -1)
		return -1;
	if ((r = subs_disabled_load(env->s, m->domain, m->list, &v, &n)) == 0) {
		r = fn(env, m, v, n, arg);
		free(v);
	}
	lockedit_close(&le);
	return r;
}

/* What probe_disable is given: the address and why. */
struct probe_disabling {
	const char *addr, *why;
};

/* probe_disable - addr's line written unless it has one (late reports
 * of older posts: the probe out stays as it is); 1 written, 0 not a
 * subscriber, 2 already disabled, -1 error */
static int
probe_disable(struct listfn_env *env, struct listfn_msg *m,
    const struct subs_disabled *v, size_t n, const void *arg)
{
	const struct probe_disabling *pd = arg;
	struct subs_disabled d;

	if (subs_disabled_find(v, n, pd->addr) != NULL) {
		log_info("%s: <%s> is already disabled on %s@%s", m->name,
		    pd->addr, m->list, m->domain);
		return 2;
	}
	memset(&d, 0, sizeof(d));
	(void)strlcpy(d.addr, pd->addr, sizeof(d.addr)); /* a checked address */
	d.since = (long long)listfn_now();
	(void)strlcpy(d.token, "-", sizeof(d.token));
	(void)strlcpy(d.why, pd->why, sizeof(d.why));
	return subs_disabled_set(env->s, m->domain, m->list, &d);
}

/* bounce_probe_disable - the threshold reached: disabled, owners told */
int
bounce_probe_disable(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *addr, long long score)
{
	struct probe_disabling pd;
	char why[200];
	int r;

	snprintf(why, sizeof(why),
	    "bounce score %lld.%02lld reached bounce_score_threshold",
	    score / 100, score % 100);
	if (lc->bounce_probes == 0)
		return probe_remove(env, m, lc, addr, why);
	pd.addr = addr, pd.why = why;
	if ((r = probe_locked(env, m, probe_disable, &pd)) != 1)
		return r == -1 ? -1 : 0;
	log_notice("%s: <%s> disabled on %s@%s: %s", m->name, addr, m->list,
	    m->domain, why);
	return bounce_owners_tell(env, m, lc,
	    "Delivery to <%s> on %s@%s is disabled: mail to it bounced\n"
	    "(%s).  It stays on the list; %lld probe(s), one every %lld\n"
	    "day(s), will tell: a delivered probe enables it again, and it\n"
	    "is removed when every probe bounced (bounce_probes,\n"
	    "bounce_probe_interval in the list's config).\n",
	    addr, m->list, m->domain, why, lc->bounce_probes,
	    lc->bounce_probe_interval / 86400);
}

/* probe_send - a probe to d's address with a new token, then its state */
static int
probe_send(struct listfn_env *env, struct listfn_msg *m,
    const struct subs_disabled *d, time_t now)
{
	char sender[SPOOL_ADDR_MAX + 1], final[PATH_MAX], *text = NULL;
	struct subs_disabled nd = *d;
	size_t tlen = 0;
	FILE *fp;
	int r = -1;

	snprintf(
	    nd.token, sizeof(nd.token), "%08x%08x", arc4random(), arc4random());
	nd.probes++, nd.probe_time = (long long)now, nd.failed = 0;
	if (snprintf(sender, sizeof(sender), "%s-owner+probe-%s@%s", m->list,
		nd.token, m->domain) >= (int)sizeof(sender) ||
	    (fp = open_memstream(&text, &tlen)) == NULL)
		return -1;
	fprintf(fp,
	    "From: <%s-owner@%s>\nReply-To: <%s>\nTo: <%s>\n"
	    "Subject: Delivery of %s@%s to you is disabled\n"
	    "Auto-Submitted: auto-generated\nPrecedence: bulk\n"
	    "MIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\n\n"
	    "Mail from %s@%s to <%s> bounced, so its delivery is disabled.\n"
	    "This is probe %d: if it reaches you, nothing needs doing;\n"
	    "delivery will be enabled again.  To have it enabled now, reply\n"
	    "to this message, or send the line\n\n    enable %s %s\n\n"
	    "to <%s-request@%s>.\n",
	    m->list, m->domain, sender, d->addr, m->list, m->domain, m->list,
	    m->domain, d->addr, nd.probes, m->list, nd.token, m->list,
	    m->domain);
	if (fclose(fp) == EOF)
		goto done;
	if (generate_commit_from(env, m, "probe", sender, d->addr, text, tlen,
		final, sizeof(final)) == -1 ||
	    subs_disabled_set(env->s, m->domain, m->list, &nd) == -1)
		goto done;
	log_info("%s: probe %d to <%s> of %s@%s, token %s", m->name, nd.probes,
	    d->addr, m->list, m->domain, nd.token);
	r = 0;
done:
	free(text);
	return r;
}

/* What probe_due_each is given: the list's config and the time. */
struct probe_due {
	const struct listconf *lc;
	time_t now;
};

/* probe_due_each - of the disabled addresses v, n of them: probes due
 * sent, delivered probes enable */
static int
probe_due_each(struct listfn_env *env, struct listfn_msg *m,
    const struct subs_disabled *v, size_t n, const void *arg)
{
	const struct probe_due *pdu = arg;
	const struct listconf *lc = pdu->lc;
	const struct subs_disabled *d;
	time_t now = pdu->now;
	size_t i;

	for (i = 0; i < n; i++) {
		d = &v[i];
		if (d->probes > 0 && !d->failed &&
		    (long long)now >=
			d->probe_time + lc->bounce_probe_interval) {
			if (subs_disabled_drop(
				env->s, m->domain, m->list, d->addr) == -1)
				return -1;
			log_notice("%s: <%s> enabled again on %s@%s: probe %d "
				   "did not bounce",
			    m->name, d->addr, m->list, m->domain, d->probes);
			if (bounce_owners_tell(env, m, lc,
				"Delivery to <%s> on %s@%s is enabled again: "
				"probe %d\nto it did not bounce.\n",
				d->addr, m->list, m->domain, d->probes) == -1)
				return -1;
		} else if ((d->probes == 0 ||
			       (d->failed && d->probes < lc->bounce_probes &&
				   (long long)now >=
				       d->probe_time +
					   lc->bounce_probe_interval)) &&
			   probe_send(env, m, d, now) == -1) {
			log_warn("%s: cannot probe <%s>", m->name, d->addr);
			return -1;
		}
	}
	return 0;
}

/* bounce_probe_due - the disabled addresses read, decided on and
 * probed under the probes' lock, so two runners never each send one */
int
bounce_probe_due(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, time_t now)
{
	struct probe_due pdu = {lc, now};

	return probe_locked(env, m, probe_due_each, &pdu);
}

/* probe_names - the class with which bf names addr failed, or -1 */
static int
probe_names(const struct bounce_found *bf, const char *addr)
{
	size_t i;

	for (i = 0; i < bf->n; i++)
		if (strcasecmp(bf->addr[i], addr) == 0)
			return (int)bf->class[i];
	return -1;
}

/* probe_report - mail back to a probe's address: a failure only when
 * it is a report naming the probe's address failed (the probes' lock
 * held) */
static int
probe_report(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const struct bounce_found *bf, int autoreply,
    size_t judged[BOUNCE_CLASSES])
{
	struct subs_disabled d;
	char why[200];
	int r, class;

	if ((r = subs_disabled_token(
		 env->s, m->domain, m->list, bf->probe, &d)) != 1) {
		if (r == 0)
			log_info("%s: bounce of a probe of %s@%s no longer "
				 "out (%s)",
			    m->name, m->list, m->domain, bf->probe);
		return r;
	}
	if (autoreply) {
		log_info("%s: an auto-reply to probe %d of <%s> on %s@%s, not "
			 "a failure",
		    m->name, d.probes, d.addr, m->list, m->domain);
		return 0;
	}
	if ((class = probe_names(bf, d.addr)) == -1) {
		log_info("%s: a report on probe %d of <%s> on %s@%s names no "
			 "failure of it, not counted",
		    m->name, d.probes, d.addr, m->list, m->domain);
		return 1;
	}
	judged[class]++;
	if (class == BOUNCE_POLICY || class == BOUNCE_TRANSIENT) {
		log_info("%s: probe %d to <%s> bounced: %s, not a failure",
		    m->name, d.probes, d.addr, bounce_class_name(class));
		return 0;
	}
	if (d.probes >= lc->bounce_probes) {
		snprintf(why, sizeof(why), "and each of its %d probes bounced",
		    d.probes);
		return probe_remove(env, m, lc, d.addr, why);
	}
	if (d.failed)
		return 0;
	d.failed = 1;
	log_info("%s: probe %d to <%s> bounced: %s", m->name, d.probes, d.addr,
	    bounce_class_name(class));
	return subs_disabled_set(env->s, m->domain, m->list, &d) == -1 ? -1 : 0;
}

/* bounce_probe_report - probe_report under the probes' lock */
int
bounce_probe_report(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const struct bounce_found *bf, int autoreply,
    size_t judged[BOUNCE_CLASSES])
{
	struct lockedit le;
	int r;

	if (subs_disabled_hold(env->s, m->domain, m->list, &le) == -1)
		return -1;
	r = probe_report(env, m, lc, bf, autoreply, judged);
	lockedit_close(&le);
	return r;
}

/* probe_answer - the probe with token was answered: the address it went
 * to enabled again, into addr (the probes' lock held) */
static int
probe_answer(struct listfn_env *env, struct listfn_msg *m, const char *list,
    const char *token, const char *how, char *addr, size_t addrlen)
{
	struct subs_disabled d;
	int r;

	if ((r = subs_disabled_token(env->s, m->domain, list, token, &d)) !=
	    1) {
		if (r == 0)
			log_notice("%s: %s for %s@%s with token %s: no probe "
				   "out has it, nothing enabled",
			    m->name, how, list, m->domain, token);
		return r;
	}
	if (subs_disabled_drop(env->s, m->domain, list, d.addr) == -1)
		return -1;
	log_notice("%s: <%s> enabled again on %s@%s: %s to probe %d", m->name,
	    d.addr, list, m->domain, how, d.probes);
	(void)strlcpy(addr, d.addr, addrlen); /* the caller's is as long */
	return 1;
}

/* bounce_probe_answer - probe_answer under the probes' lock */
int
bounce_probe_answer(struct listfn_env *env, struct listfn_msg *m,
    const char *list, const char *token, const char *how, char *addr,
    size_t addrlen)
{
	struct lockedit le;
	int r;

	if (subs_disabled_hold(env->s, m->domain, list, &le) == -1)
		return -1;
	r = probe_answer(env, m, list, token, how, addr, addrlen);
	lockedit_close(&le);
	return r;
}
