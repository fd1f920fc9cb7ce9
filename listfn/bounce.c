/*
 * bounce.c - bounces to <list>-owner: counted per subscriber, and after
 * bounce_max_count of them within bounce_max_age the subscriber is taken
 * off the list and the owners are told.
 *
 * The counts live beside the subscribers, in <lists>/<domain>/<list>/
 * bounces, one line per address: "<address> <time> <time> ...", the
 * times of its bounces within bounce_max_age (older ones are dropped at
 * each rewrite), changed under lockedit's lock like the subscribers.
 * Only subscribers are counted, so a forged bounce can at worst remove
 * a subscriber, who can subscribe again; a bounce that names no address
 * is forwarded to the owners like other owner mail.
 *
 * Each failed address comes judged (lists/bounce_class.c): only a
 * recipient or mailbox failure counts; a policy, transient or unknown
 * one (a blocklisting, a DMARC rejection, a throttle) is logged and not
 * counted.  A report naming more addresses than bounce_parse keeps is
 * counted for those it keeps and forwarded to the owners.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bounce.h"
#include "listfn_list.h"
#include "listfn_state.h"
#include "lockedit.h"
#include "log.h"
#include "listfn_msg.h"
#include "reply.h"
#include "lists.h"

/* bounce_count - add a bounce of addr now: its bounces within
 * bounce_max_age, its line dropped when that reaches bounce_max_count;
 * -1 error */
static long long
bounce_count(struct listfn_env *env, const struct listfn_msg *m,
    const struct listconf *lc, const char *addr, time_t now)
{
	char path[PATH_MAX], *out = NULL, *mine = NULL, *line, *save = NULL;
	char *w, *wsave = NULL;
	size_t outlen = 0, minelen = 0, alen = strlen(addr);
	long long t, count = 0;
	struct lockedit le;
	FILE *fp = NULL, *mp = NULL;
	int ok = -1;

	if (listconf_path(path, sizeof(path), env->s, m->domain, m->list,
		"bounces") == -1 ||
	    lockedit_open(&le, path) == -1)
		return -1;
	if ((fp = open_memstream(&out, &outlen)) == NULL ||
	    (mp = open_memstream(&mine, &minelen)) == NULL)
		goto done;
	for (line = strtok_r(le.text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncasecmp(line, addr, alen) != 0 ||
		    (line[alen] != ' ' && line[alen] != '\0')) {
			fprintf(fp, "%s\n", line);
			continue;
		}
		for (w = strtok_r(line + alen, " ", &wsave); w != NULL;
		     w = strtok_r(NULL, " ", &wsave))
			if ((t = strtoll(w, NULL, 10)) + lc->bounce_max_age >
			    (long long)now) {
				fprintf(mp, " %lld", t);
				count++;
			}
	}
	fprintf(mp, " %lld", (long long)now);
	count++;
	if (fclose(mp) == EOF) {
		mp = NULL;
		goto done;
	}
	mp = NULL;
	if (lc->bounce_max_count == 0 || count < lc->bounce_max_count)
		fprintf(fp, "%s%s\n", addr, mine);
	if (fclose(fp) == EOF) {
		fp = NULL;
		goto done;
	}
	fp = NULL;
	if (lockedit_commit(&le, out, outlen) == 0)
		ok = 0;
done:
	if (mp != NULL)
		fclose(mp);
	if (fp != NULL)
		fclose(fp);
	free(out);
	free(mine);
	lockedit_close(&le);
	return ok == 0 ? count : -1;
}

/* bounce_remove - enough bounces: off the list, and the owners told */
static int
bounce_remove(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *addr, long long count)
{
	char from[SPOOL_ADDR_MAX + 1], **v;
	struct reply_set rs;
	struct reply *to;
	size_t n, i;
	int ok = 0;

	if (subs_edit(env->s, m->domain, m->list, SUBS_REMOVE, addr) == -1)
		return -1;
	log_notice("%s: <%s> unsubscribed from %s@%s after %lld bounces",
	    m->name, addr, m->list, m->domain, count);
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
		    "%lld times within %lld day(s) (bounce_max_count,\n"
		    "bounce_max_age in the list's config).\n",
		    addr, m->list, m->domain, count,
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
	struct listconf lc;
	long long count;
	size_t i;
	int member, r;

	bounce_parse(m->domain, m->list, text, len, &bf);
	if (!bf.is_bounce || (bf.n == 0 && !bf.delayed))
		return 1;
	if ((r = listfn_list_conf(env, m, &lc)) != 0)
		return r;
	if (bf.delayed)
		log_info("%s: delivery delay warning, not counted", m->name);
	for (i = 0; i < bf.n; i++) {
		if (bf.class[i] != BOUNCE_RECIPIENT &&
		    bf.class[i] != BOUNCE_MAILBOX) {
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
		if ((count = bounce_count(
			 env, m, &lc, bf.addr[i], time(NULL))) == -1) {
			log_warn("%s: cannot count the bounce of <%s>", m->name,
			    bf.addr[i]);
			return -1;
		}
		log_info("%s: bounce for <%s> on %s@%s: %lld of %lld", m->name,
		    bf.addr[i], m->list, m->domain, count, lc.bounce_max_count);
		if (lc.bounce_max_count > 0 && count >= lc.bounce_max_count &&
		    bounce_remove(env, m, &lc, bf.addr[i], count) == -1)
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
