/*
 * moderate_expire.c - held posts past their list's moderation_lifetime:
 * the poster is told once, the post is removed.
 *
 * A runner sweeps HOLD/ at most once per MODERATE_EXPIRE_EVERY seconds,
 * when it walks the spool, and expires at most MODERATE_EXPIRE_MAX posts
 * per sweep, so a HOLD/ of thousands costs one directory walk a minute.
 * Only posts held for moderation (a .why starting MODERATE_WHY) expire;
 * a post over max_message_size waits for the operator.  The hold time is
 * the mtime of the .why, written by the move.  Tokens twice their
 * lifetime old are swept at the same pace.  A post is expired only
 * under its lock and while its HOLD/ path still names the file locked
 * (spool_move_lock): one approved meanwhile is in QUEUE/, and its poster
 * must not be told it was removed.  The note to the poster is committed
 * before the post is removed: a crash in between tells the poster twice,
 * never not at all.
 */
#include <sys/mman.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "lists.h"
#include "log.h"
#include "moderate.h"
#include "moderate_expire.h"
#include "listfn_msg.h"
#include "spool_move.h"
#include "spool_token.h"
#include "spool_walk.h"
#include "spool_why.h"

struct moderate_sweep {
	struct listfn_env *env;
	time_t now;
	int expired;
	struct listconf lc; /* of the list last looked at */
	char domain[NAME_DOMAIN_MAX + 1], list[NAME_LIST_MAX + 1];
	int lc_ok;
};

/* moderate_sweep_conf - the config of e's list (kept for the next) */
static int
moderate_sweep_conf(struct moderate_sweep *w, const struct spool_entry *e)
{
	char err[512];

	if (strcmp(w->domain, e->domain) == 0 &&
	    strcmp(w->list, e->name.list) == 0)
		return w->lc_ok ? 0 : -1;
	strlcpy(w->domain, e->domain, sizeof(w->domain));
	strlcpy(w->list, e->name.list, sizeof(w->list));
	w->lc_ok = listconf_load(w->env->s, e->domain, e->name.list, &w->lc,
		       err, sizeof(err)) == 0;
	if (!w->lc_ok)
		log_warnx("list %s@%s: %s", e->name.list, e->domain, err);
	return w->lc_ok ? 0 : -1;
}

/* moderate_drop - tell the poster of the locked post at e, remove it */
static int
moderate_drop(struct moderate_sweep *w, const struct spool_entry *e, int fd)
{
	char from[SPOOL_ADDR_MAX + 1], sender[SPOOL_ADDR_MAX + 1], what[200];
	char life[64];
	struct listfn_msg *m;
	void *map = NULL;
	int ok = 0;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return -1;
	/* The note is generated mail in the post's own tiers. */
	strlcpy(m->path, e->path, sizeof(m->path));
	strlcpy(m->name, e->file, sizeof(m->name));
	strlcpy(m->domain, e->domain, sizeof(m->domain));
	strlcpy(m->list, e->name.list, sizeof(m->list));
	m->function = SPOOL_FN_LIST;
	m->domain_prio = e->domain_prio;
	m->list_prio = e->list_prio;
	m->fd = m->datafd = -1;
	if (e->st.st_size > 0) {
		if ((map = mmap(NULL, (size_t)e->st.st_size, PROT_READ,
			 MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
			free(m);
			return -1;
		}
		moderate_poster(
		    map, (size_t)e->st.st_size, from, sender, sizeof(from));
		clock_span_words(w->lc.moderation_lifetime, life, sizeof(life));
		snprintf(what, sizeof(what),
		    "was not approved by a moderator within %s and has been "
		    "removed.",
		    life);
		ok = moderate_tell(w->env, m, sender[0] ? sender : from, map,
		    (size_t)e->st.st_size, what);
		munmap(map, (size_t)e->st.st_size);
	}
	free(m);
	if (ok == -1)
		return -1;
	return spool_move_delete(e->path);
}

/* moderate_sweep_one - spool_walk's callback: expire e if it is due */
static int
moderate_sweep_one(void *arg, const struct spool_entry *e)
{
	struct moderate_sweep *w = arg;
	char why[SPOOL_WHY_MAX];
	time_t when;
	int fd;

	if (e->stray || e->function != SPOOL_FN_LIST)
		return 0;
	if (spool_why_read(e->path, why, sizeof(why), &when) == -1 ||
	    strncmp(why, MODERATE_WHY, strlen(MODERATE_WHY)) != 0 ||
	    moderate_sweep_conf(w, e) == -1 ||
	    (long long)when + w->lc.moderation_lifetime > (long long)w->now)
		return 0;
	/* Busy: a moderator's command has it in hand.  Gone, or moved
	 * between the walk and the lock (approved, or another runner's
	 * sweep): not held any more, and its poster is not told. */
	if ((fd = spool_move_lock(e->path)) == -1)
		return 0;
	if (moderate_drop(w, e, fd) == -1)
		log_warn("%s: cannot expire the held post", e->file);
	else
		log_notice("%s: held post to %s@%s expired after %llds "
			   "(moderation_lifetime): removed, poster told",
		    e->file, e->name.list, e->domain,
		    (long long)(w->now - when));
	close(fd);
	return ++w->expired >= MODERATE_EXPIRE_MAX;
}

/* moderate_expire - sweep HOLD/ (the caller spaces the sweeps
 * MODERATE_EXPIRE_EVERY apart); the number of posts expired (their notes
 * are new mail in QUEUE/) */
int
moderate_expire(struct listfn_env *env, time_t now)
{
	struct moderate_sweep *w;
	int n;

	/* Moderation tokens are swept here, not per held post: one
	 * directory read a minute.  Twice the lifetime, so that a token
	 * used soon after it expired is still answered "expired". */
	spool_token_sweep(
	    env->s->spool_dir, 2 * env->ls->request_token_lifetime, now);
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return 0;
	w->env = env;
	w->now = now;
	if (spool_walk(env->s->spool_dir, SPOOL_HOLD, moderate_sweep_one, w) ==
		-1 &&
	    errno != ENOENT)
		log_warn("cannot walk %s/%s", env->s->spool_dir, SPOOL_HOLD);
	n = w->expired;
	free(w);
	return n;
}
