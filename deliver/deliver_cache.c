/*
 * deliver_cache.c - the SMTP sessions of this runner: idle ones kept
 * for the next batch to the same nexthop (smtp_connection_cache_time),
 * and per nexthop how many are open, in use, idle or being opened.  A
 * nexthop here is the batch's destination name (deliver_batch.h's
 * dest): "source->nexthop" when it goes out from a sending pool's
 * address, so a session is never reused from another address, and a
 * 421 one address drew limits that address alone.
 *
 * Why the count: a server that takes N sessions at once answers the
 * next one with 421 (SCHEDULER_README, "active server concurrency
 * limiter").  The scheduler's window counts deliveries, and a runner
 * starts the deliveries its window allows at once, each on a thread of
 * its own: when the sessions in use cannot serve them all, every one of
 * them opens a session at the same moment, and all beyond N are
 * refused together, each deferring its recipients, long before the
 * first 421 has been heard.  So the server's answer is remembered here:
 * when it refuses a session while k of ours are open, no (k+1)th is
 * opened for ttl (the cache time) seconds; a delivery that finds none
 * idle waits for one of the k to come back, as does the delivery whose
 * session was refused, which then goes out instead of being deferred.
 * After ttl the next session beyond k is opened again, one at a time,
 * and a success raises k.  With no session of ours open (k = 0: other
 * runners' sessions fill the server) the next try comes after
 * DELIVER_CACHE_RETRY.  How long a delivery waits in all is its
 * caller's (deliver_smtp.c); only then is it deferred, with the
 * scheduler's negative feedback.
 *
 * With [cluster] (deliver_sessions_leased) a new session is also
 * covered by a lease of the shared window, and the delivery whose
 * session was refused had one that the receiver just showed to be one
 * too many: the runner gives that lease back when it tells the other
 * nodes the refusal (cluster.c), so the delivery does not try again on
 * its own but waits, counted in `waiting`, for a lease taken anew
 * under the lowered window (deliver_sessions_grant), or for one of our
 * sessions to come back.  Else the nodes' refused deliveries would
 * each try again before the window had come down.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "deliver.h"
#include "deliver_cache.h"

/* One nexthop's sessions. */
struct deliver_host {
	struct deliver_host *next;
	int open;	/* in use, idle, or being opened */
	int connecting; /* being opened */
	int limit;	/* sessions the server took when it refused (-1: -) */
	int refused; /* refusals not yet asked for (deliver_sessions_refused) */
	int waiting; /* refused deliveries waiting for a lease ([cluster]) */
	int grants;  /* leases taken anew for them, not yet used */
	double until;	/* the limit holds until then */
	char nexthop[]; /* NUL-terminated */
};

/* How long a waiting delivery sleeps before it looks again at most (a
 * session that comes back wakes it at once). */
#define DELIVER_CACHE_POLL 0.1
/* How soon a runner with no session open tries again after a refusal. */
#define DELIVER_CACHE_RETRY 0.5

static pthread_mutex_t deliver_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t deliver_cache_cv = PTHREAD_COND_INITIALIZER;
static struct deliver_cached *deliver_cache_idle;
static struct deliver_host *deliver_cache_hosts;
/* New sessions go under [cluster] leases (deliver_sessions_leased). */
static int deliver_cache_leased;

/* deliver_cache_host - the nexthop's record, made when create is set;
 * NULL when there is none (or no memory).  Under the lock. */
static struct deliver_host *
deliver_cache_host(const char *nexthop, int create)
{
	struct deliver_host *h;
	size_t len = strlen(nexthop) + 1;

	for (h = deliver_cache_hosts; h != NULL; h = h->next)
		if (strcmp(h->nexthop, nexthop) == 0)
			return h;
	if (!create || (h = calloc(1, sizeof(*h) + len)) == NULL)
		return NULL;
	memcpy(h->nexthop, nexthop, len);
	h->limit = -1;
	h->next = deliver_cache_hosts;
	deliver_cache_hosts = h;
	return h;
}

/* deliver_cache_forget - drop records with nothing open and no limit
 * holding, so that memory follows the nexthops in use.  Under the lock. */
static void
deliver_cache_forget(double now)
{
	struct deliver_host **pp, *h;

	for (pp = &deliver_cache_hosts; (h = *pp) != NULL;)
		if (h->open == 0 && h->connecting == 0 && h->waiting == 0 &&
		    now >= h->until) {
			*pp = h->next;
			free(h);
		} else
			pp = &h->next;
}

/* deliver_cache_take - an idle session to nexthop, or NULL.  Under the
 * lock. */
static struct deliver_cached *
deliver_cache_take(const char *nexthop)
{
	struct deliver_cached **pp, *c;

	for (pp = &deliver_cache_idle; (c = *pp) != NULL; pp = &c->next)
		if (strcmp(c->nexthop, nexthop) == 0) {
			*pp = c->next;
			c->next = NULL;
			return c;
		}
	return NULL;
}

/* deliver_cache_held - may no session be opened now: the limit holds,
 * or, past its time, another is being opened beyond it */
static int
deliver_cache_held(const struct deliver_host *h, double now)
{
	return h->limit >= 0 && h->open >= h->limit &&
	       (now < h->until || h->connecting > 0);
}

/* deliver_cache_sleep - wait for a session to come back, until the
 * limit ends, DELIVER_CACHE_POLL at most.  Under the lock. */
static void
deliver_cache_sleep(const struct deliver_host *h, double now)
{
	double t = now + DELIVER_CACHE_POLL;
	struct timespec ts;

	if (h->until > now && h->until < t)
		t = h->until;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	(void)pthread_cond_timedwait(&deliver_cache_cv, &deliver_cache_mu, &ts);
}

/* deliver_cache_fresh - a new session to open, counted open.  Under
 * the lock. */
static struct deliver_cached *
deliver_cache_fresh(struct deliver_host *h)
{
	struct deliver_cached *c;

	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->nexthop = strdup(h->nexthop)) == NULL) {
		free(c);
		return NULL;
	}
	c->fresh = 1;
	h->open++;
	h->connecting++;
	return c;
}

/* deliver_cache_unwait - a refused delivery waits no more; the leases
 * taken for it go with the last one.  Under the lock. */
static void
deliver_cache_unwait(struct deliver_host *h)
{
	if (h->waiting > 0 && --h->waiting == 0)
		h->grants = 0;
}

/* deliver_cache_get - an idle session, else a fresh one once allowed
 * (retry: for a delivery refused a session, deliver_cache_failed) */
struct deliver_cached *
deliver_cache_get(const char *nexthop, double deadline, int retry)
{
	struct deliver_cached *c = NULL;
	struct deliver_host *h;
	double now;
	int lease;

	pthread_mutex_lock(&deliver_cache_mu);
	for (;;) {
		h = deliver_cache_host(nexthop, 1);
		if ((c = deliver_cache_take(nexthop)) != NULL || h == NULL)
			break;
		now = clock_now();
		lease = !retry || !deliver_cache_leased || h->grants > 0;
		if (now >= deadline || (lease && !deliver_cache_held(h, now))) {
			if (retry && deliver_cache_leased && h->grants > 0)
				h->grants--;
			c = deliver_cache_fresh(h);
			break;
		}
		deliver_cache_sleep(h, now);
	}
	if (retry && deliver_cache_leased && h != NULL)
		deliver_cache_unwait(h);
	pthread_mutex_unlock(&deliver_cache_mu);
	return c;
}

/* deliver_cache_opened - a fresh session is open: one more the server
 * took */
void
deliver_cache_opened(struct deliver_cached *c)
{
	struct deliver_host *h;

	pthread_mutex_lock(&deliver_cache_mu);
	c->fresh = 0;
	if ((h = deliver_cache_host(c->nexthop, 0)) != NULL) {
		h->connecting--;
		if (h->limit >= 0 && h->open > h->limit)
			h->limit = h->open;
	}
	pthread_cond_broadcast(&deliver_cache_cv);
	pthread_mutex_unlock(&deliver_cache_mu);
}

/* deliver_cache_failed - a fresh session was not opened; with refused,
 * the sessions open are the server's limit for ttl seconds (with none
 * open, other runners' sessions fill the server: the next try in
 * DELIVER_CACHE_RETRY seconds at the soonest) */
int
deliver_cache_failed(struct deliver_cached *c, int refused, double ttl)
{
	struct deliver_host *h;
	int wait = 0;

	pthread_mutex_lock(&deliver_cache_mu);
	if ((h = deliver_cache_host(c->nexthop, 0)) != NULL) {
		h->connecting--;
		h->open--;
		h->refused += refused;
		if (refused && ttl > 0) {
			h->limit = h->open;
			h->until = clock_now() +
				   (h->open > 0 || ttl < DELIVER_CACHE_RETRY
					   ? ttl
					   : DELIVER_CACHE_RETRY);
			wait = 1;
			h->waiting += deliver_cache_leased;
		}
	}
	pthread_cond_broadcast(&deliver_cache_cv);
	pthread_mutex_unlock(&deliver_cache_mu);
	free(c->nexthop);
	free(c);
	return wait;
}

/* deliver_cache_put - keep a session for the next batch, or close it */
void
deliver_cache_put(struct deliver_cached *c, double ttl)
{
	if (c->s.broken || c->s.ahead || ttl <= 0) {
		deliver_cache_free(c);
		return;
	}
	c->expires = clock_now() + ttl;
	pthread_mutex_lock(&deliver_cache_mu);
	c->next = deliver_cache_idle;
	deliver_cache_idle = c;
	pthread_cond_broadcast(&deliver_cache_cv);
	pthread_mutex_unlock(&deliver_cache_mu);
}

/* deliver_cache_end - QUIT, close and free a session, no longer open;
 * 0 when the server answered the QUIT, else -1 */
static int
deliver_cache_end(struct deliver_cached *c)
{
	struct deliver_host *h;
	int answered = smtp_session_quit(&c->s);

	pthread_mutex_lock(&deliver_cache_mu);
	if ((h = deliver_cache_host(c->nexthop, 0)) != NULL) {
		h->open--;
		deliver_cache_forget(clock_now());
	}
	pthread_cond_broadcast(&deliver_cache_cv);
	pthread_mutex_unlock(&deliver_cache_mu);
	free(c->nexthop);
	free(c);
	return answered;
}

/* deliver_cache_free - QUIT, close and free a session, no longer open */
void
deliver_cache_free(struct deliver_cached *c)
{
	(void)deliver_cache_end(c);
}

/* deliver_cache_close - close idle sessions: those to nexthop (max of
 * them, -1: all), else those past their time (all: every one); the
 * QUITs happen outside the lock.  How many QUITs the servers answered */
static int
deliver_cache_close(const char *nexthop, int max, double now, int all)
{
	struct deliver_cached **pp, *c, *dead = NULL;
	int answered = 0;

	pthread_mutex_lock(&deliver_cache_mu);
	for (pp = &deliver_cache_idle; (c = *pp) != NULL && max != 0;) {
		if (nexthop != NULL ? strcmp(c->nexthop, nexthop) == 0
				    : all || c->expires <= now) {
			if (max > 0)
				max--;
			*pp = c->next;
			c->next = dead;
			dead = c;
		} else
			pp = &c->next;
	}
	pthread_mutex_unlock(&deliver_cache_mu);
	while ((c = dead) != NULL) {
		dead = c->next;
		if (deliver_cache_end(c) == 0)
			answered++;
	}
	return answered;
}

/* deliver_cache_reap - close idle sessions past their time (all: every
 * one, at shutdown) */
void
deliver_cache_reap(double now, int all)
{
	(void)deliver_cache_close(NULL, -1, now, all);
}

/* deliver_sessions_yield - close max idle sessions to nexthop (-1:
 * all; deliver.h) */
int
deliver_sessions_yield(const char *nexthop, int max)
{
	return deliver_cache_close(nexthop, max, 0, 0);
}

/* deliver_sessions_open - sessions to nexthop open (deliver.h) */
int
deliver_sessions_open(const char *nexthop)
{
	struct deliver_host *h;
	int n;

	pthread_mutex_lock(&deliver_cache_mu);
	n = (h = deliver_cache_host(nexthop, 0)) != NULL ? h->open : 0;
	pthread_mutex_unlock(&deliver_cache_mu);
	return n;
}

/* deliver_sessions_leased - new sessions go under [cluster] leases
 * (deliver.h) */
void
deliver_sessions_leased(void)
{
	deliver_cache_leased = 1;
}

/* deliver_sessions_waiting - deliveries to nexthop refused a session
 * and waiting for a lease (deliver.h) */
int
deliver_sessions_waiting(const char *nexthop)
{
	struct deliver_host *h;
	int n = 0;

	pthread_mutex_lock(&deliver_cache_mu);
	if ((h = deliver_cache_host(nexthop, 0)) != NULL)
		n = h->waiting - h->grants;
	pthread_mutex_unlock(&deliver_cache_mu);
	return n > 0 ? n : 0;
}

/* deliver_sessions_grant - a lease taken anew for a delivery waiting
 * (deliver.h); 0, or -1 when none waits any more (the caller gives it
 * back) */
int
deliver_sessions_grant(const char *nexthop)
{
	struct deliver_host *h;
	int r = -1;

	pthread_mutex_lock(&deliver_cache_mu);
	if ((h = deliver_cache_host(nexthop, 0)) != NULL &&
	    h->waiting > h->grants) {
		h->grants++;
		r = 0;
	}
	pthread_cond_broadcast(&deliver_cache_cv);
	pthread_mutex_unlock(&deliver_cache_mu);
	return r;
}

/* deliver_sessions_refused - new sessions to nexthop the server refused
 * (421) since the last call (deliver.h) */
int
deliver_sessions_refused(const char *nexthop)
{
	struct deliver_host *h;
	int n = 0;

	pthread_mutex_lock(&deliver_cache_mu);
	if ((h = deliver_cache_host(nexthop, 0)) != NULL) {
		n = h->refused;
		h->refused = 0;
	}
	pthread_mutex_unlock(&deliver_cache_mu);
	return n;
}
