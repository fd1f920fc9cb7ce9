/*
 * deliver_sts.c - MTA-STS policies for the smtp transport: the look-up a
 * delivery thread makes, and the runner's policy thread that fetches.
 *
 * The policies live in the spool's shared cache (spool_sts.c), one
 * record per recipient domain, used by every runner of the host and
 * kept across restarts.  A delivery thread only reads it: a cached
 * policy costs a hash look-up under the table lock.  What the cache
 * lacks or holds stale is asked of the policy thread through a small
 * queue, and the thread does the slow part:
 *
 *   1. claim the domain's record (fetching = until when), so that one
 *      runner of the host fetches and the others wait for its result;
 *   2. look up the TXT record _mta-sts.<domain> (3.1);
 *   3. when it names an id other than the cached policy's, or the cached
 *      policy would expire before the next look, fetch the policy over
 *      HTTPS (mj_stsfetch, deliver_sts_fetch.c) and parse it
 *      (smtp/mta_sts.c); a failure is recorded for TLS-RPT
 *      (deliver_tlsrpt.c): sts-policy-fetch-error, sts-webpki-invalid
 *      (the policy host's certificate) or sts-policy-invalid;
 *   4. write the outcome back: a new policy, the cached one kept (no TXT
 *      record, or a fetch that failed while the cached one is valid,
 *      5.1), or no policy; release the claim; wake the waiters.
 *
 * A delivery to a domain the cache knows nothing of (or whose policy
 * has expired) waits for that, at most smtp_mta_sts_wait, then goes on
 * as without MTA-STS (logged).  A known policy is used as it is while
 * its TXT record is looked at again in the background every
 * smtp_mta_sts_refresh.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "deliver_sts.h"
#include "deliver_sts_fetch.h"
#include "deliver_tlsrpt.h"
#include "log.h"
#include "spool_sts.h"

#define DELIVER_STS_QUEUE 64	    /* domains waiting for the thread */
#define DELIVER_STS_POLL_MS 50	    /* a waiter looks at the cache again */
#define DELIVER_STS_RETRY 60.0	    /* after a failed TXT look-up */
#define DELIVER_STS_CLAIM_SLACK 5.0 /* a claim outlives the fetch by this */

/* The cache's modes are the parser's, so a record's mode is a policy's. */
_Static_assert((int)MTA_STS_NONE_FOUND == SPOOL_STS_NO_POLICY &&
		   (int)MTA_STS_ENFORCE == SPOOL_STS_ENFORCE &&
		   (int)MTA_STS_TESTING == SPOOL_STS_TESTING &&
		   (int)MTA_STS_NONE == SPOOL_STS_NONE,
    "MTA-STS modes differ from the cache's");

static pthread_mutex_t deliver_sts_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t deliver_sts_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t deliver_sts_done = PTHREAD_COND_INITIALIZER;
static struct spool_sts deliver_sts_cache = {.fd = -1};
static const struct delivery_params *deliver_sts_params;
static pthread_t deliver_sts_thread;
static int deliver_sts_running, deliver_sts_stop;
static char deliver_sts_queue[DELIVER_STS_QUEUE][SPOOL_STS_DOMAIN_MAX + 1];
static int deliver_sts_nqueue;

/* deliver_sts_copy - a record into a delivery's policy */
static void
deliver_sts_copy(const struct spool_sts_rec *r, struct deliver_sts_policy *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->pol.mode = (enum mta_sts_mode)r->mode;
	out->pol.max_age = (long)r->max_age;
	out->pol.nmx = r->nmx < MTA_STS_MX_MAX ? r->nmx : MTA_STS_MX_MAX;
	for (i = 0; i < out->pol.nmx; i++)
		(void)strlcpy(out->pol.mx[i], r->mx[i], MTA_STS_NAME_MAX);
	(void)strlcpy(out->id, r->id, sizeof(out->id));
}

/* deliver_sts_ask - the policy thread is to look at domain (once in the
 * queue; dropped when it is full: the next delivery asks again).  Call
 * with deliver_sts_mu held. */
static void
deliver_sts_ask(const char *domain)
{
	int i;

	for (i = 0; i < deliver_sts_nqueue; i++)
		if (strcmp(deliver_sts_queue[i], domain) == 0)
			return;
	if (deliver_sts_nqueue == DELIVER_STS_QUEUE)
		return;
	(void)strlcpy(deliver_sts_queue[deliver_sts_nqueue++], domain,
	    sizeof(deliver_sts_queue[0]));
	pthread_cond_signal(&deliver_sts_work);
}

/* deliver_sts_peek - what the cache says of domain: 1 an answer to use
 * now (out filled, perhaps "no policy"), 0 none yet (the thread has been
 * asked).  Call with deliver_sts_mu held. */
static int
deliver_sts_peek(const char *domain, double now, struct deliver_sts_policy *out)
{
	struct spool_sts_rec *r;
	int idx, answer = 0;

	memset(out, 0, sizeof(*out));
	if (spool_sts_lock(&deliver_sts_cache) == -1)
		return 1; /* no cache to ask: as without MTA-STS */
	if ((idx = spool_sts_find(&deliver_sts_cache, domain, 0, now)) >= 0) {
		r = &deliver_sts_cache.rec[idx];
		r->used_at = now;
		if (r->mode != MTA_STS_NONE_FOUND && r->expires > now) {
			deliver_sts_copy(r, out);
			answer = 1;
		} else if (r->mode == MTA_STS_NONE_FOUND && r->recheck > 0)
			answer = 1; /* known to have none (for now) */
		if (answer && r->recheck <= now && r->fetching <= now)
			deliver_sts_ask(domain);
	}
	spool_sts_unlock(&deliver_sts_cache);
	if (!answer)
		deliver_sts_ask(domain);
	return answer;
}

/* deliver_sts_get - the policy for mail to domain: the cached one, or,
 * when there is none yet, what the policy thread finds within
 * smtp_mta_sts_wait; MTA_STS_NONE_FOUND for no policy */
void
deliver_sts_get(const struct delivery_params *p, const char *domain,
    struct deliver_sts_policy *out)
{
	double now = clock_now(), until = now + (double)p->mta_sts_wait;
	struct timespec ts;

	memset(out, 0, sizeof(*out));
	if (!p->mta_sts)
		return;
	pthread_mutex_lock(&deliver_sts_mu);
	if (!deliver_sts_running) {
		pthread_mutex_unlock(&deliver_sts_mu);
		return;
	}
	while (!deliver_sts_peek(domain, now, out)) {
		if (now >= until || deliver_sts_stop) {
			log_warnx("smtp: MTA-STS policy of %s not known yet: "
				  "delivering without it",
			    domain);
			break;
		}
		/* Woken by our thread's results; another runner's are
		 * seen at the next poll. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += DELIVER_STS_POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(
		    &deliver_sts_done, &deliver_sts_mu, &ts);
		now = clock_now();
	}
	pthread_mutex_unlock(&deliver_sts_mu);
}

/* The policy thread's view of one domain while it works on it. */
struct deliver_sts_job {
	char domain[SPOOL_STS_DOMAIN_MAX + 1];
	struct spool_sts_rec was; /* the record when claimed */
	struct mta_sts_policy pol;
	char id[MTA_STS_ID_MAX + 1];
	enum { STS_KEEP, STS_NEW, STS_NONE } verdict;
	double recheck;
	char error[SPOOL_STS_ERROR_MAX + 1];
};

/* deliver_sts_claim - step 1: the domain's record is ours to fill until
 * the fetch's time is up; 0, or -1 when another runner has it (or the
 * cache is full of policies in force: logged) */
static int
deliver_sts_claim(struct deliver_sts_job *j, double now, double until)
{
	struct spool_sts_rec *r;
	int idx, r_ok = -1;

	pthread_mutex_lock(&deliver_sts_mu);
	if (spool_sts_lock(&deliver_sts_cache) == 0) {
		if ((idx = spool_sts_find(
			 &deliver_sts_cache, j->domain, 1, now)) == -1)
			log_warnx("smtp: cannot cache the MTA-STS policy of "
				  "%s: %s",
			    j->domain,
			    errno == ENOSPC
				? "the cache is full of policies in force"
				: strerror(errno));
		else if ((r = &deliver_sts_cache.rec[idx])->fetching <= now &&
			 (r->recheck <= now || (r->mode != MTA_STS_NONE_FOUND &&
						   r->expires <= now))) {
			r->fetching = until;
			j->was = *r;
			r_ok = 0;
		}
		spool_sts_unlock(&deliver_sts_cache);
	}
	pthread_mutex_unlock(&deliver_sts_mu);
	return r_ok;
}

/* deliver_sts_fetch - step 3: fetch and parse the policy; 0, or -1 with
 * the job's error set and the failure recorded for TLS-RPT (RFC 8460
 * 4.3.2.2), one per fetch */
static int
deliver_sts_fetch(struct deliver_sts_job *j, const struct delivery_params *p)
{
	static char buf[MTA_STS_POLICY_MAX];
	const char *result = "sts-policy-invalid";
	char why[300];
	size_t len;
	int r;

	/* buf is the policy thread's own: there is one per runner. */
	if ((r = deliver_sts_fetch_run(j->domain, p, buf, sizeof(buf), &len,
		 why, sizeof(why))) == 0 &&
	    mta_sts_policy_parse(buf, len, &j->pol, why, sizeof(why)) == 0)
		return 0;
	(void)strlcpy(j->error, why, sizeof(j->error));
	if (r == DELIVER_STS_FETCH_FAILED)
		result = "sts-policy-fetch-error";
	else if (r == DELIVER_STS_FETCH_WEBPKI)
		result = "sts-webpki-invalid";
	/* curl's timeout text carries the milliseconds it waited: one
	 * reason for every timeout, so that a day's report counts them in
	 * one failure-details entry */
	deliver_tlsrpt_fetch_failed(j->domain, result,
	    strcasestr(why, "timed out") != NULL ? "policy fetch timed out"
						 : why);
	return -1;
}

/* deliver_sts_decide - steps 2 and 3: what the TXT record and the policy
 * server say now, as a verdict on the cached record */
static void
deliver_sts_decide(struct deliver_sts_job *j, const struct delivery_params *p,
    struct mx_resolver *res, double now)
{
	char name[SPOOL_STS_DOMAIN_MAX + 16], txt[4096];
	int cached = j->was.mode != MTA_STS_NONE_FOUND && j->was.expires > now;
	double refresh = (double)p->mta_sts_refresh;
	enum mx_status ms;
	unsigned ttl;

	j->verdict = STS_KEEP;
	j->recheck = now + refresh;
	snprintf(name, sizeof(name), "_mta-sts.%s", j->domain);
	if ((ms = dns_txt(res, name, txt, sizeof(txt), &ttl)) == MX_TEMPFAIL) {
		(void)strlcpy(j->error, "TXT look-up failed", sizeof(j->error));
		j->recheck =
		    now +
		    (refresh < DELIVER_STS_RETRY ? refresh : DELIVER_STS_RETRY);
		if (!cached)
			j->verdict = STS_NONE;
		return;
	}
	if (ms == MX_NOTFOUND ||
	    mta_sts_txt_parse(txt, j->id, sizeof(j->id)) == -1) {
		/* No (valid) record: a cached policy stays until it
		 * expires (3.1); else there is none. */
		if (!cached)
			j->verdict = STS_NONE;
		return;
	}
	if (cached && strcmp(j->id, j->was.id) == 0 &&
	    j->was.expires > now + refresh)
		return; /* unchanged, and valid past the next look */
	if (deliver_sts_fetch(j, p) == 0) {
		j->verdict = STS_NEW;
		return;
	}
	log_warnx("smtp: cannot fetch the MTA-STS policy of %s: %s; %s",
	    j->domain, j->error,
	    cached ? "the cached policy stays" : "delivering without MTA-STS");
	if (!cached)
		j->verdict = STS_NONE;
}

/* deliver_sts_store - step 4: the verdict into the domain's record, the
 * claim released, the waiters woken */
static void
deliver_sts_store(const struct deliver_sts_job *j, double now)
{
	struct spool_sts_rec *r;
	size_t i;
	int idx;

	pthread_mutex_lock(&deliver_sts_mu);
	if (spool_sts_lock(&deliver_sts_cache) == 0) {
		if ((idx = spool_sts_find(
			 &deliver_sts_cache, j->domain, 1, now)) >= 0) {
			r = &deliver_sts_cache.rec[idx];
			if (j->verdict == STS_NEW) {
				r->mode = (int32_t)j->pol.mode;
				r->max_age = j->pol.max_age;
				r->fetched = now;
				r->expires = now + (double)j->pol.max_age;
				r->nmx = (uint32_t)j->pol.nmx;
				for (i = 0; i < j->pol.nmx; i++)
					(void)strlcpy(r->mx[i], j->pol.mx[i],
					    sizeof(r->mx[i]));
				(void)strlcpy(r->id, j->id, sizeof(r->id));
			} else if (j->verdict == STS_NONE) {
				r->mode = MTA_STS_NONE_FOUND;
				r->nmx = 0;
				r->id[0] = '\0';
				r->expires = 0;
			}
			if (j->error[0] != '\0') {
				(void)strlcpy(r->last_error, j->error,
				    sizeof(r->last_error));
				r->error_at = now;
			}
			r->recheck = j->recheck;
			r->fetching = 0;
		}
		spool_sts_unlock(&deliver_sts_cache);
	}
	pthread_cond_broadcast(&deliver_sts_done);
	pthread_mutex_unlock(&deliver_sts_mu);
}

/* deliver_sts_one - steps 1 to 4 for one domain */
static void
deliver_sts_one(const char *domain, struct mx_resolver *res)
{
	const struct delivery_params *p = deliver_sts_params;
	double now = clock_now();
	struct deliver_sts_job j;

	memset(&j, 0, sizeof(j));
	(void)strlcpy(j.domain, domain, sizeof(j.domain));
	if (deliver_sts_claim(&j, now,
		now + (double)p->mta_sts_timeout * 2 +
		    DELIVER_STS_CLAIM_SLACK) == -1)
		return;
	deliver_sts_decide(&j, p, res, now);
	if (j.verdict == STS_NEW)
		log_info("smtp: MTA-STS policy of %s: mode=%s max_age=%ld "
			 "id=%s mx=%s%s",
		    domain, mta_sts_mode_names[j.pol.mode], j.pol.max_age, j.id,
		    j.pol.nmx > 0 ? j.pol.mx[0] : "-",
		    j.pol.nmx > 1 ? ",..." : "");
	deliver_sts_store(&j, clock_now());
}

/* deliver_sts_main - the policy thread: the queue's domains, one by one */
static void *
deliver_sts_main(void *arg)
{
	char domain[SPOOL_STS_DOMAIN_MAX + 1], why[300];
	struct mx_resolver res;
	int have_res;

	(void)arg;
	if (!(have_res = mx_resolver_init(&res, deliver_sts_params->dns_server,
			     why, sizeof(why)) == 0))
		log_warnx("smtp: MTA-STS off: %s", why);
	pthread_mutex_lock(&deliver_sts_mu);
	for (;;) {
		while (deliver_sts_nqueue == 0 && !deliver_sts_stop)
			pthread_cond_wait(&deliver_sts_work, &deliver_sts_mu);
		if (deliver_sts_stop)
			break;
		(void)strlcpy(domain, deliver_sts_queue[0], sizeof(domain));
		memmove(deliver_sts_queue[0], deliver_sts_queue[1],
		    (size_t)--deliver_sts_nqueue *
			sizeof(deliver_sts_queue[0]));
		pthread_mutex_unlock(&deliver_sts_mu);
		if (have_res)
			deliver_sts_one(domain, &res);
		pthread_mutex_lock(&deliver_sts_mu);
	}
	pthread_mutex_unlock(&deliver_sts_mu);
	if (have_res)
		mx_resolver_close(&res);
	return NULL;
}

/* deliver_sts_open - the shared cache and the policy thread, when
 * smtp_mta_sts is on; 0, or -1 with err (the runner goes on without) */
int
deliver_sts_open(const char *spool, const struct delivery_params *p, char *err,
    size_t errlen)
{
	if (!p->mta_sts)
		return 0;
	if (deliver_sts_fetch_find(err, errlen) == -1)
		return -1;
	if (spool_sts_open(&deliver_sts_cache, spool, 1) == -1) {
		snprintf(err, errlen, "cannot open %s/%s: %m", spool,
		    SPOOL_STS_FILE);
		return -1;
	}
	deliver_sts_params = p;
	deliver_sts_stop = 0;
	if ((errno = pthread_create(
		 &deliver_sts_thread, NULL, deliver_sts_main, NULL)) != 0) {
		snprintf(err, errlen, "cannot start the MTA-STS thread: %m");
		spool_sts_close(&deliver_sts_cache);
		return -1;
	}
	deliver_sts_running = 1;
	return 0;
}

/* deliver_sts_close - end the policy thread (after its fetch in hand)
 * and unmap the cache; the delivery threads have ended */
void
deliver_sts_close(void)
{
	if (!deliver_sts_running)
		return;
	pthread_mutex_lock(&deliver_sts_mu);
	deliver_sts_stop = 1;
	pthread_cond_broadcast(&deliver_sts_work);
	pthread_mutex_unlock(&deliver_sts_mu);
	(void)pthread_join(deliver_sts_thread, NULL);
	deliver_sts_running = 0;
	deliver_sts_nqueue = 0;
	spool_sts_close(&deliver_sts_cache);
}
