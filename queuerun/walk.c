/*
 * walk.c - find due messages in QUEUE/ and claim them.
 *
 * One walk keeps the due messages that come first in the claim order,
 * at most WALK_KEEP x active_limit of them (a heap: the walk's memory
 * follows the active limit, not the queue), with their tier (domain
 * priority, then list priority, as spool_walk orders them), and sorts
 * them: starving
 * messages first (due for longer than [queuerun] starvation_age, oldest
 * first), then tier by tier, in random order inside a tier (arc4random)
 * so that concurrent runners spread over the queue instead of colliding
 * on the same files.  A claim is flock(LOCK_EX|LOCK_NB) on the message
 * file, held as long as the message is in the active set: the kernel
 * drops it when the runner dies, and the next runner takes over from the
 * state file.
 *
 * Claims are handed out one at a time (walk_next): the step loop expands
 * each before asking for the next, so a message released at once (moved
 * aside, put off) leaves its room to the next candidate of the same pass.
 * The candidates a pass had no room for are kept for the next one.
 *
 * What the runner cannot read or write (a message, a directory of
 * QUEUE/, tmp/: a wrong owner or mode), and a message it does not own
 * (it could not put it off), is left where it is and logged
 * with its path and the reason, once per minimal_backoff_time per path
 * and runner, like a deferral: every walk meets it again, and a line per
 * walk would flood the log.  mj_queuerun -c names it and, run as root,
 * repairs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnv.h"
#include "log.h"
#include "fail_log.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "lists.h"
#include "spool_finish.h"
#include "spool_name.h"
#include "spool_path.h"
#include "walk.h"
#include "spool_walk.h"

#define WALK_SAID_MAX 64

/* Paths the runner could not use, and when that was last logged. */
static struct walk_said {
	uint64_t hash; /* FNV-1a of the path; 0: free */
	double when;
} walk_said[WALK_SAID_MAX];

/* A due message the walk may claim; domain and file are in its path. */
struct walk_cand {
	char *path;
	uint16_t domain_off, domain_len, file_off;
	unsigned char function;
	signed char domain_prio, list_prio, starving;
	long tier; /* rank of the priority tier, high first */
	time_t mtime;
	uint32_t rnd;
};

/* The candidates a walk keeps: the best WALK_KEEP x active_limit, as a
 * heap with the worst kept on top, so memory follows the active limit,
 * not the queue. */
#define WALK_KEEP 10

struct walk_ctx {
	struct queuerun *q;
	double now;
	struct walk_cand *v;
	size_t n, cap, max;
	int truncated; /* due messages were dropped for lack of room */
	ino_t *active; /* sorted inodes of the active set */
	size_t nactive;
	time_t next; /* earliest future mtime */
};

/* walk_complain - log that path cannot be used (errno err), unless
 * that was logged less than minimal_backoff_time ago */
static void
walk_complain(
    struct queuerun *q, double now, const char *path, int err, const char *what)
{
	uint64_t h = fnv1a_str(FNV1A_BASIS, path) | 1;
	size_t i, slot = 0;

	for (i = 0; i < WALK_SAID_MAX; i++) {
		if (walk_said[i].hash == h) {
			if (now - walk_said[i].when <
			    (double)q->dc->base.min_backoff)
				return;
			slot = i;
			break;
		}
		if (walk_said[i].when < walk_said[slot].when)
			slot = i; /* free, or the oldest */
	}
	walk_said[slot].hash = h;
	walk_said[slot].when = now;
	log_warnx("%s: %s: %s; left in place, not logged again for %llds", path,
	    what, strerror(err), q->dc->base.min_backoff);
}

/* walk_ino_cmp - qsort/bsearch on inode numbers */
static int
walk_ino_cmp(const void *a, const void *b)
{
	ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;

	return x < y ? -1 : x > y;
}

/* walk_cand_cmp - starving oldest first, then tier, then random */
static int
walk_cand_cmp(const void *a, const void *b)
{
	const struct walk_cand *x = a, *y = b;

	if (x->starving != y->starving)
		return y->starving - x->starving;
	if (x->starving && x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	return x->rnd < y->rnd ? -1 : x->rnd > y->rnd;
}

/* walk_orphan - a state file or .try whose message is gone (a runner
 * died between the two unlinks of a finish or a move): removed, unless
 * a commit or a move that holds it is still linking its message */
static void
walk_orphan(struct walk_ctx *c, const char *path)
{
	switch (spool_orphan_remove(path)) {
	case 1:
		log_notice("%s: removed: no message of that name (left by a "
			   "runner that died finishing or moving it)",
		    path);
		break;
	case -1:
		walk_complain(c->q, c->now, path, errno,
		    "cannot remove this file left without its message");
		break;
	}
}

/* walk_heap_down - restore the heap (worst on top) below slot i */
static void
walk_heap_down(struct walk_cand *v, size_t n, size_t i)
{
	struct walk_cand t;
	size_t c;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && walk_cand_cmp(&v[c + 1], &v[c]) > 0)
			c++;
		if (walk_cand_cmp(&v[c], &v[i]) <= 0)
			break;
		t = v[i], v[i] = v[c], v[c] = t;
	}
}

/* walk_heap_up - restore the heap above slot i */
static void
walk_heap_up(struct walk_cand *v, size_t i)
{
	struct walk_cand t;
	size_t p;

	for (; i > 0 && walk_cand_cmp(&v[i], &v[p = (i - 1) / 2]) > 0; i = p)
		t = v[i], v[i] = v[p], v[p] = t;
}

/* walk_offsets - where the file and the domain are in e's path
 * (.../<domain>/<yy>/<function>/<file>), kept instead of copies */
static int
walk_offsets(struct walk_cand *w, const struct spool_entry *e)
{
	const char *file = strrchr(e->path, '/'), *p;
	size_t dlen = strlen(e->domain);
	int up;

	if (file == NULL || strcmp(++file, e->file) != 0)
		return -1;
	for (p = file, up = 0; up < 3; up++)
		do
			p--;
		while (p > e->path && *p != '/');
	if ((size_t)(p - e->path) < dlen + 1 ||
	    memcmp(p - dlen, e->domain, dlen) != 0)
		return -1;
	w->file_off = (uint16_t)(file - e->path);
	w->domain_off = (uint16_t)(p - dlen - e->path);
	w->domain_len = (uint16_t)dlen;
	return 0;
}

/* walk_visit - spool_walk's callback: keep a due, unclaimed message if
 * it is among the best c->max seen so far */
static int
walk_visit(void *arg, const struct spool_entry *e)
{
	struct walk_ctx *c = arg;
	struct walk_cand w, *nv;
	char *path;

	if (e->error != 0) {
		walk_complain(c->q, c->now, e->path, e->error,
		    e->dir ? "cannot read this directory of the queue"
			   : "cannot examine");
		return 0;
	}
	if (e->orphan) {
		walk_orphan(c, e->path);
		return 0;
	}
	if (e->stray || e->dot)
		return 0;
	if (e->st.st_mtime > (time_t)c->now) {
		if (c->next == 0 || e->st.st_mtime < c->next)
			c->next = e->st.st_mtime;
		return 0;
	}
	if (c->nactive > 0 && bsearch(&e->st.st_ino, c->active, c->nactive,
				  sizeof(ino_t), walk_ino_cmp) != NULL)
		return 0;
	w.function = (unsigned char)e->function;
	w.domain_prio = (signed char)e->domain_prio;
	w.list_prio = (signed char)e->list_prio;
	/* Tiers of the same priorities in different domains share a rank:
	 * spool_walk already gives the priority order. */
	w.tier = (long)(99 - e->domain_prio) * 100 + (99 - e->list_prio);
	w.mtime = e->st.st_mtime;
	w.starving = c->q->s->queuerun_starvation_age > 0 &&
		     c->now - (double)e->st.st_mtime >
			 (double)c->q->s->queuerun_starvation_age;
	w.rnd = arc4random();
	if (c->n == c->max) {
		c->truncated = 1;
		if (walk_cand_cmp(&w, &c->v[0]) >= 0)
			return 0; /* not better than the worst kept */
	}
	if (walk_offsets(&w, e) == -1)
		return 0;
	if ((path = strdup(e->path)) == NULL)
		return 1;
	w.path = path;
	if (c->n == c->max) {
		free(c->v[0].path);
		c->v[0] = w;
		walk_heap_down(c->v, c->n, 0);
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		if (cap > c->max)
			cap = c->max;
		if ((nv = reallocarray(c->v, cap, sizeof(*nv))) == NULL) {
			free(path);
			return 1;
		}
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->n] = w;
	walk_heap_up(c->v, c->n++);
	return 0;
}

/* walk_take - try to claim one candidate; the new message or NULL */
static struct qr_msg *
walk_take(struct queuerun *q, const struct walk_cand *w, double now)
{
	struct qr_msg *m;
	struct stat sb;
	int fd;

	if ((fd = open(w->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		/* ENOENT: finished by another runner meanwhile */
		if (errno != ENOENT)
			walk_complain(
			    q, now, w->path, errno, "cannot open the message");
		return NULL;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);
		return NULL;
	}
	/* Finished or deferred by its previous holder while we waited. */
	if (fstat(fd, &sb) == -1 || sb.st_nlink == 0 ||
	    sb.st_mtime > (time_t)now || !S_ISREG(sb.st_mode)) {
		close(fd);
		return NULL;
	}
	/* Its next try is its mtime, which only its owner may set: taken
	 * from another user, a deferral would leave it due, and it would be
	 * delivered again at every walk, without end. */
	if (sb.st_uid != geteuid() && geteuid() != 0) {
		close(fd);
		walk_complain(q, now, w->path, EPERM,
		    "not owned by the runner's user, so it could not be put "
		    "off");
		return NULL;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		close(fd);
		return NULL;
	}
	if (strlcpy(m->lm.path, w->path, sizeof(m->lm.path)) >=
	    sizeof(m->lm.path)) {
		free(m);
		close(fd);
		walk_complain(
		    q, now, w->path, ENAMETOOLONG, "cannot claim the message");
		return NULL;
	}
	m->lm.fd = fd;
	m->lm.datafd = -1;
	m->lm.st.fd = -1;
	m->lm.claimed = now;
	/* Both fit: spool_walk gives only names of these sizes. */
	(void)strlcpy(m->lm.name, w->path + w->file_off, sizeof(m->lm.name));
	if (w->domain_len < sizeof(m->lm.domain)) {
		memcpy(m->lm.domain, w->path + w->domain_off, w->domain_len);
		m->lm.domain[w->domain_len] = '\0';
	}
	m->lm.function = (enum spool_function)w->function;
	m->lm.domain_prio = w->domain_prio;
	m->lm.list_prio = w->list_prio;
	return m;
}

/* walk_free_cands - free candidates v[from..n) and the array */
static void
walk_free_cands(struct walk_cand *v, size_t from, size_t n)
{
	for (; from < n; from++)
		free(v[from].path);
	free(v);
}

/* walk_tmp - new messages need tmp/ for their state files: say so when
 * the runner cannot write there (they wait, deferred, until it can) */
static void
walk_tmp(struct queuerun *q, double now)
{
	char path[PATH_MAX];

	if (spool_path(path, sizeof(path), q->s->spool_dir, SPOOL_TMP) == 0 &&
	    faccessat(AT_FDCWD, path, W_OK | X_OK, AT_EACCESS) == -1)
		walk_complain(q, now, path, errno,
		    "cannot write the spool's tmp/: new messages wait");
}

/* walk_scan - walk QUEUE/ afresh: every due message not in the active
 * set, in the order walk_next claims them (a new pass p) */
void
walk_scan(struct queuerun *q, double now, struct walk_pass *p)
{
	struct walk_ctx c;
	struct qr_msg *m;
	size_t k = 0;

	walk_forget(q);
	memset(p, 0, sizeof(*p));
	p->fresh = 1;
	memset(&c, 0, sizeof(c));
	c.q = q;
	c.now = now;
	c.max = (size_t)q->s->queuerun_active_limit * WALK_KEEP;
	if (q->walk.nactive > 0 &&
	    (c.active = calloc(q->walk.nactive, sizeof(ino_t))) != NULL) {
		struct stat sb;
		for (m = q->walk.active; m != NULL; m = m->next)
			if (fstat(m->lm.fd, &sb) == 0)
				c.active[k++] = sb.st_ino;
		c.nactive = k;
		qsort(c.active, c.nactive, sizeof(ino_t), walk_ino_cmp);
	}
	walk_tmp(q, now);
	if (spool_walk_flags(q->s->spool_dir, SPOOL_QUEUE,
		SPOOL_WALK_ERRORS | SPOOL_WALK_ORPHANS, walk_visit, &c) == -1 &&
	    errno != ENOENT) {
		char path[PATH_MAX];
		int err = errno;
		if (spool_path(
			path, sizeof(path), q->s->spool_dir, SPOOL_QUEUE) == 0)
			walk_complain(q, now, path, err, "cannot walk");
	}
	if (c.n > 0) /* c.v is NULL then, which qsort must not get */
		qsort(c.v, c.n, sizeof(*c.v), walk_cand_cmp);
	q->walk.next = (double)c.next;
	p->truncated = c.truncated;
	free(c.active);
	/* walk_next claims from here; walk_end keeps what is left. */
	q->walk.left = c.v;
	q->walk.nleft = c.n;
	q->walk.pos = 0;
}

/* walk_next - claim the next candidate of the pass; NULL when the active
 * set is full (p->full set) or the candidates have run out.  The message
 * joins the active set; the loop expands it, or releases it. */
struct qr_msg *
walk_next(struct queuerun *q, double now, struct walk_pass *p)
{
	struct walk_cand *v = q->walk.left;
	struct spool_name sn;
	struct qr_msg *m;

	p->full = 0;
	while (q->walk.pos < q->walk.nleft) {
		if (q->walk.nactive >= q->s->queuerun_active_limit ||
		    q->draining) {
			p->full = 1;
			return NULL;
		}
		m = walk_take(q, &v[q->walk.pos], now);
		/* Tried: the candidate is the runner's now, or gone. */
		free(v[q->walk.pos].path);
		v[q->walk.pos++].path = NULL;
		if (m == NULL)
			continue;
		/* Of the same size, so it fits. */
		if (spool_name_parse(m->lm.name, &sn) == 0)
			(void)strlcpy(m->lm.list, sn.list, sizeof(m->lm.list));
		m->next = q->walk.active;
		if (q->walk.active != NULL)
			q->walk.active->prev = m;
		q->walk.active = m;
		q->walk.nactive++;
		p->got++;
		return m;
	}
	return NULL;
}

/* walk_end - the pass is over: keep the due messages left for lack of
 * room (a big queue costs one walk, not one per freed slot), or ask for
 * a new walk when the leftovers ran out (new mail may have come) */
void
walk_end(struct queuerun *q, const struct walk_pass *p)
{
	if (!p->fresh) {
		if (!p->full) {
			walk_forget(q);
			q->rescan = 1;
		}
		return;
	}
	if (!p->full || q->draining)
		walk_forget(q);
	/* Idle: nothing in hand after the walk (messages locked by other
	 * runners do not count).  Claims all released at once (moved
	 * aside, put off) get one more walk or two to see what is left;
	 * not more, so a message a function keeps leaving alone cannot
	 * make the runner spin.  A walk that had no room for every due
	 * message is followed by another: the ones it claimed are gone or
	 * put off, so the next one sees others. */
	q->walk.idle = q->walk.nactive == 0 && q->walk.left == NULL;
	if (q->walk.nactive > 0 || p->got == 0)
		q->walk.quick = 0;
	else if (!q->draining && (p->truncated || q->walk.quick++ < 2))
		q->rescan = 1;
}

/* walk_forget - drop what the last walk left */
void
walk_forget(struct queuerun *q)
{
	if (q->walk.left != NULL)
		walk_free_cands(q->walk.left, q->walk.pos, q->walk.nleft);
	q->walk.left = NULL;
	q->walk.nleft = q->walk.pos = 0;
}

/* walk_release - drop a message from the active set, free it and drop
 * its claim */
void
walk_release(struct queuerun *q, struct qr_msg *m)
{
	if (m->prev != NULL)
		m->prev->next = m->next;
	else
		q->walk.active = m->next;
	if (m->next != NULL)
		m->next->prev = m->prev;
	q->walk.nactive--;
	fail_log_close(m);
	if (m->map != NULL)
		munmap(m->map, m->maplen);
	free(m->reader);
	if (m->lm.st.fd != -1)
		spool_state_close(&m->lm.st);
	if (m->lm.datafd != -1)
		close(m->lm.datafd);
	rcpt_head_free(m->lm.head);
	free(m->lm.arc);
	if (m->lm.fd != -1)
		close(m->lm.fd); /* the claim goes with the last descriptor */
	free(m);
}
