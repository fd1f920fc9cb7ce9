/*
 * digest_mode.c - a reader's mode change at an issue boundary.
 *
 * A post goes at once to the readers in mode each and is collected for
 * the digest readers; an issue goes to whoever reads digests when it is
 * made.  A reader who left the digests between two issues would miss
 * the posts collected before, and one who came from each would get them
 * twice.  So a change into or out of the digests (each or nomail to
 * digest or digest-plain, and back) is an issue boundary:
 *   1. the list's modes lock (spool_digest_modes) is taken exclusive: no
 *      post is between its collection and the reading of its recipients
 *      (post.c holds the lock shared across both);
 *   2. the posts collected so far go out in an issue now, to the digest
 *      readers of before the change (digest_issue_now);
 *   3. the mode is written (subs_mode_set);
 *   4. the lock is let go.
 * Each post was collected either before 1 (it is in the issue of 2, and
 * went one by one by the old mode) or after 4 (both by the new mode):
 * every post reaches every reader once, in one form.  The reader who
 * leaves gets what was collected for it in that issue, and the one who
 * comes gets only what is collected after; the others get an issue
 * early.  A change between the two kinds of digest is no boundary: what
 * waits reaches the reader once, in the new kind.
 * Crash after 2, before 3: the issue is sent (its issue/ is finished by
 * the next runner), the mode is unchanged, and the request, run again,
 * finds nothing waiting and changes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "digest.h"
#include "digest_mode.h"
#include "log.h"
#include "spool_commit.h"
#include "spool_digest.h"

/* modes_lock - the modes lock of list at domain, shared or exclusive */
static int
modes_lock(
    struct listfn_env *env, const char *domain, const char *list, int exclusive)
{
	char dir[PATH_MAX];

	if (spool_digest_dir(
		dir, sizeof(dir), env->s->spool_dir, domain, list) == -1 ||
	    spool_mkdirs(env->s->spool_dir, dir) == -1)
		return -1;
	return spool_digest_modes(dir, exclusive);
}

/* digest_modes_hold - shared, for one post */
int
digest_modes_hold(
    struct listfn_env *env, struct listfn_msg *m, const struct listconf *lc)
{
	int fd;

	if (!lc->digest)
		return DIGEST_MODES_NONE;
	if ((fd = modes_lock(env, m->domain, m->list, 0)) == -1)
		log_warn("%s: cannot take the digest modes lock", m->name);
	return fd;
}

/* mode_digests - the mode reads digests */
static int
mode_digests(enum subs_mode mode)
{
	return mode == SUBS_DIGEST || mode == SUBS_DIGEST_PLAIN;
}

/* mode_of - addr's mode on list into *mode; 1, 0 not subscribed, -1 */
static int
mode_of(struct listfn_env *env, const char *domain, const char *list,
    const char *addr, enum subs_mode *mode)
{
	struct subs_mode_ent *v;
	char err[300];
	size_t n, i;
	int r = 0;

	if (subs_mode_list(env->s, domain, list, &v, &n, err, sizeof(err)) ==
	    -1) {
		log_warnx("%s@%s: %s", list, domain, err);
		return -1;
	}
	for (i = 0; i < n && r == 0; i++)
		if (strcasecmp(v[i].addr, addr) == 0) {
			*mode = v[i].mode;
			r = 1;
		}
	free(v);
	return r;
}

/* mode_boundary - steps 2 and 3 under the lock held by the caller */
static int
mode_boundary(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *list, const char *addr,
    enum subs_mode mode)
{
	int k;

	if ((k = digest_issue_now(env, m->domain, list, lc)) == -1)
		return -1;
	if (k > 0) {
		log_info("%s: <%s> leaves or joins the digests of %s@%s: "
			 "what was collected went out in an issue",
		    m->name, addr, list, m->domain);
		m->rescan = 1;
	}
	return subs_mode_set(env->s, m->domain, list, addr, mode);
}

/* digest_mode_set - the mode, at an issue boundary when needed */
int
digest_mode_set(struct listfn_env *env, struct listfn_msg *m, const char *list,
    const char *addr, enum subs_mode mode)
{
	struct listconf lc;
	enum subs_mode old;
	char err[300];
	int fd, r;

	if (listconf_load(env->s, m->domain, list, &lc, err, sizeof(err)) ==
	    -1) {
		log_warnx("%s: %s@%s: %s", m->name, list, m->domain, err);
		return -1;
	}
	if (!lc.digest)
		return subs_mode_set(env->s, m->domain, list, addr, mode);
	if ((fd = modes_lock(env, m->domain, list, 1)) == -1) {
		log_warn("%s: cannot take the digest modes lock of %s@%s",
		    m->name, list, m->domain);
		return -1;
	}
	if ((r = mode_of(env, m->domain, list, addr, &old)) == 1 &&
	    mode_digests(old) != mode_digests(mode))
		r = mode_boundary(env, m, &lc, list, addr, mode);
	else if (r != -1)
		r = subs_mode_set(env->s, m->domain, list, addr, mode);
	close(fd);
	return r;
}
