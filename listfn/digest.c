/*
 * digest.c - digests: a post accepted for a list with digest = yes is
 * collected (spool_digest_collect) in its first processing, before its
 * own state file is committed: a crash in between collects it again,
 * under the same name, so it is there once.  An issue is made when the
 * collection reaches digest_size (right after the post that fills it)
 * or, daily, at digest_hour (local time) once a post waits: the first
 * time the runners' minute sweep (digest_sweep) finds that hour past the
 * oldest post.  Making and sending an issue follows the numbered states
 * of spool_digest_issue.c; one message per kind of reader (MIME,
 * plain), with its readers in its state file, queued under owner/ at
 * the list's tiers and delivered, DKIM-signed, as any generated mail.
 *
 * Volumes count years: the first issue of a new year (local time)
 * starts volume + 1 at issue 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "digest.h"
#include "digest_text.h"
#include "listfn_clock.h"
#include "log.h"
#include "spool_digest.h"
#include "spool_state.h"

/* The readers of an issue, per kind. */
struct digest_readers {
	char **v[2]; /* [0] digest (MIME), [1] digest-plain */
	size_t n[2], cap[2];
	const struct subs_disabled *off;
	size_t noff;
};

/* digest_reader - listconf_subscribers_each_mode's callback */
static int
digest_reader(void *arg, const char *addr, enum subs_mode mode)
{
	struct digest_readers *r = arg;
	char **nv;
	int k;

	if (mode != SUBS_DIGEST && mode != SUBS_DIGEST_PLAIN)
		return 0;
	if (subs_disabled_find(r->off, r->noff, addr) != NULL)
		return 0;
	k = mode == SUBS_DIGEST ? 0 : 1;
	if (r->n[k] == r->cap[k]) {
		r->cap[k] = r->cap[k] ? r->cap[k] * 2 : 16;
		if ((nv = reallocarray(r->v[k], r->cap[k], sizeof(*nv))) ==
		    NULL)
			return -1;
		r->v[k] = nv;
	}
	if ((r->v[k][r->n[k]] = strdup(addr)) == NULL)
		return -1;
	r->n[k]++;
	return 0;
}

/* digest_readers_free - the vectors of r */
static void
digest_readers_free(struct digest_readers *r)
{
	int k;

	for (k = 0; k < 2; k++)
		listconf_free_vec(r->v[k], r->n[k]);
}

/* digest_readers_load - the digest and digest-plain readers of the
 * list, those whose delivery is disabled left out (*off: the disabled,
 * for the caller to free) */
static int
digest_readers_load(struct listfn_env *env, const char *domain,
    const char *list, struct digest_readers *rd, struct subs_disabled **off)
{
	char err[300];

	if (subs_disabled_load(env->s, domain, list, off, &rd->noff) == -1)
		return -1;
	rd->off = *off;
	if (listconf_subscribers_each_mode(env->s, domain, list, digest_reader,
		rd, err, sizeof(err)) == -1) {
		log_warnx("%s@%s: digest: %s", list, domain, err);
		return -1;
	}
	return 0;
}

/* digest_due - an issue is due: the posts reach digest_size, or the
 * first digest_hour after the oldest post has come */
static int
digest_due(const struct listconf *lc, const struct spool_digest_entry *e,
    size_t n, time_t now)
{
	long long size = 0;
	time_t t0;
	struct tm tm;
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		size += (long long)e[i].size;
	if (size >= lc->digest_size)
		return 1;
	t0 = (time_t)(e[0].mtime_ns / 1000000000LL);
	if (localtime_r(&t0, &tm) == NULL)
		return 0;
	if (tm.tm_hour >= lc->digest_hour)
		tm.tm_mday++; /* today's hour has passed: tomorrow's */
	tm.tm_hour = (int)lc->digest_hour;
	tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return now >= mktime(&tm);
}

/* digest_next - the counter of the issue after c, made at now */
static void
digest_next(struct spool_digest_counter *c, time_t now,
    const struct spool_digest_entry *last)
{
	struct tm tm;
	long long year = 0;

	if (localtime_r(&now, &tm) != NULL)
		year = tm.tm_year + 1900LL;
	if (c->year != 0 && year != c->year) {
		c->volume++;
		c->issue = 0;
	}
	c->issue++;
	c->year = year;
	c->last = (long long)now;
	if (spool_digest_entry_tiers(last->name, &c->dprio, &c->lprio) == -1)
		c->dprio = c->lprio = SPOOL_PRIO_DEFAULT;
}

/* digest_kind - the message and state file of one kind of an issue */
static int
digest_kind(const struct digest_issue *di, enum subs_mode mode,
    char *const *rcpt, size_t n, struct spool_digest_kind *k)
{
	struct spool_state_init init;
	char sender[NAME_LIST_MAX + NAME_DOMAIN_MAX + 8];
	char *state, *msg;
	size_t slen, mlen;

	if (digest_text(di, mode, &msg, &mlen) == -1)
		return -1;
	snprintf(sender, sizeof(sender), "%s-owner@%s", di->list, di->domain);
	memset(&init, 0, sizeof(init));
	init.sender = sender;
	init.from = "";
	init.kind = mode == SUBS_DIGEST ? "digest" : "digest-plain";
	init.arrival = (long long)di->now;
	spool_msgid_of(&init.msgid, msg, mlen);
	if (spool_state_format(&init, rcpt, n, &state, &slen) == -1) {
		free(msg);
		return -1;
	}
	k->kind = init.kind;
	k->msg = msg, k->msglen = mlen;
	k->state = state, k->statelen = slen;
	return 0;
}

/* digest_posts - the texts of the entries (free with digest_posts_free) */
static struct digest_post *
digest_posts(const char *dir, const struct spool_digest_entry *e, size_t n)
{
	struct digest_post *p;
	size_t i;

	if ((p = calloc(n, sizeof(*p))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (spool_digest_read(dir, e[i].name, &p[i].text, &p[i].len) ==
		    -1) {
			while (i > 0)
				free(p[--i].text);
			free(p);
			return NULL;
		}
	return p;
}

/* digest_make - D1: the issue of the n posts of e, for the readers of
 * each kind there are */
static int
digest_make(struct listfn_env *env, const char *dir, const char *domain,
    const char *list, const struct listconf *lc,
    const struct spool_digest_entry *e, size_t n, time_t now)
{
	struct digest_readers rd;
	struct spool_digest_counter c;
	struct spool_digest_kind k[2];
	struct subs_disabled *off = NULL;
	struct digest_issue di;
	struct digest_post *posts;
	char err[PATH_MAX + 100], *foot = NULL;
	size_t nk = 0, i;
	int r = -1, kind;

	memset(&rd, 0, sizeof(rd));
	if (spool_digest_counter_read(dir, "counter", &c) == -1 ||
	    (posts = digest_posts(dir, e, n)) == NULL)
		return -1;
	digest_next(&c, now, &e[n - 1]);
	if (digest_readers_load(env, domain, list, &rd, &off) == -1)
		goto done;
	if (list_text_load(env->s, lc, domain, list, "footer", &foot, err,
		sizeof(err)) == -1) {
		log_warnx("%s@%s: digest deferred: %s", list, domain, err);
		goto done;
	}
	di = (struct digest_issue){
	    list, domain, lc, c.volume, c.issue, now, posts, n, foot};
	for (kind = 0; kind < 2; kind++)
		if (rd.n[kind] > 0 &&
		    digest_kind(&di,
			kind == 0 ? SUBS_DIGEST : SUBS_DIGEST_PLAIN, rd.v[kind],
			rd.n[kind], &k[nk++]) == -1) {
			nk--;
			goto done;
		}
	r = spool_digest_prepare(dir, &c, e, n, k, nk);
	if (r == 0)
		log_info("%s@%s: digest volume %lld issue %lld made: %zu "
			 "post(s), %zu MIME and %zu plain reader(s)",
		    list, domain, c.volume, c.issue, n, rd.n[0], rd.n[1]);
done:
	for (i = 0; i < nk; i++) {
		free((char *)k[i].msg);
		free((char *)k[i].state);
	}
	for (i = 0; i < n; i++)
		free(posts[i].text);
	free(posts);
	free(off);
	free(foot);
	digest_readers_free(&rd);
	return r;
}

/* digest_issue - under the list's digest lock: an issue half sent is
 * sent; else, with lc (the list has digests), one is made and sent when
 * due, or (now_all, an issue boundary) whenever a post waits, the lock
 * then waited for; the number of messages queued, or -1 */
static int
digest_issue(struct listfn_env *env, const char *domain, const char *list,
    const struct listconf *lc, time_t now, int now_all)
{
	struct spool_digest_entry *e = NULL;
	char dir[PATH_MAX];
	size_t n = 0;
	int fd, r = 0, sent = 0, p;

	if (spool_digest_dir(
		dir, sizeof(dir), env->s->spool_dir, domain, list) == -1 ||
	    spool_mkdirs(env->s->spool_dir, dir) == -1)
		return -1;
	fd = now_all ? spool_digest_lock_wait(dir) : spool_digest_lock(dir);
	if (fd == -2)
		return 0; /* another runner is at it */
	if (fd == -1)
		return -1;
	if ((p = spool_digest_pending(dir)) == 0 && lc != NULL) {
		if (spool_digest_entries(dir, &e, &n) == -1)
			r = -1;
		else if (now_all ? n > 0 : digest_due(lc, e, n, now)) {
			if (digest_make(
				env, dir, domain, list, lc, e, n, now) == -1)
				r = -1;
			else
				p = 1;
		}
	}
	if (p == -1)
		r = -1;
	if (r == 0 && p == 1 &&
	    (r = spool_digest_finish(
		 env->s->spool_dir, dir, domain, list, &sent)) == 0 &&
	    sent > 0)
		log_info(
		    "%s@%s: digest: %d message(s) queued", list, domain, sent);
	if (r == -1)
		log_warn("%s@%s: digest in %s", list, domain, dir);
	free(e);
	close(fd);
	return r == -1 ? -1 : sent;
}

/* digest_issue_now - an issue boundary: what waits sent now */
int
digest_issue_now(struct listfn_env *env, const char *domain, const char *list,
    const struct listconf *lc)
{
	return digest_issue(env, domain, list, lc, listfn_now(), 1);
}

/* digest_collect - the post into the collection; an issue if full */
int
digest_collect(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len)
{
	int k;

	if (!lc->digest)
		return 0;
	if ((k = spool_digest_collect(env->s->spool_dir, m->domain, m->list,
		 m->domain_prio, m->list_prio, m->name, text, len)) == -1) {
		log_warn("%s: cannot collect it for the digest", m->name);
		return -1;
	}
	if (k == 1)
		log_info("%s: collected for the digest of %s@%s", m->name,
		    m->list, m->domain);
	if (digest_issue(env, m->domain, m->list, lc, listfn_now(), 0) > 0)
		m->rescan = 1;
	return 0; /* an issue that failed is made again later */
}

/* digest_sweep_list - spool_digest_lists's callback */
static int
digest_sweep_list(void *arg, const char *domain, const char *list)
{
	struct listfn_env *env = ((void **)arg)[0];
	int *queued = ((void **)arg)[1], k;
	struct listconf lc;
	char err[300];

	if (listconf_presence(env->s, domain, list, err, sizeof(err)) !=
		LISTCONF_PRESENT ||
	    listconf_load(env->s, domain, list, &lc, err, sizeof(err)) == -1)
		k = digest_issue(env, domain, list, NULL, listfn_now(), 0);
	else
		k = digest_issue(
		    env, domain, list, lc.digest ? &lc : NULL, listfn_now(), 0);
	if (k > 0)
		*queued += k;
	return 0;
}

/* digest_sweep - every list's digest, as due */
int
digest_sweep(struct listfn_env *env)
{
	int queued = 0;
	void *arg[2] = {env, &queued};

	if (spool_digest_lists(env->s->spool_dir, digest_sweep_list, arg) == -1)
		log_warn("cannot sweep the digests");
	return queued;
}
