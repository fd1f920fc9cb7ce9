/*
 * deliver_smtp.c - the smtp transport: a batch becomes one transaction
 * of the SMTP client (smtp_session.c, smtp_xact.c) over a session that is
 * reused when one to the same nexthop is idle in the cache
 * (deliver_cache.c, which also holds new sessions back while a server's
 * 421 says it takes no more, the batch then waiting for one); or one per
 * recipient (VERP, header fields of its own), each copy made before the
 * one in front of it goes, so that its envelope rides behind that one's
 * final dot (smtp_xact.c's chaining), and the copy after it made (its
 * signature the costly part) while the server takes the text in front,
 * so that the thread finds the server's reply there instead of sleeping
 * on it (smtp_xact.h's wait).
 *
 * Nexthops: "[host]:port" or "[host]" connect to host's addresses, no MX;
 * "host" or "host:port" go through MX (mx_*.c when it is there, else
 * host's own addresses, the RFC 5321 fallback).  The addresses are tried
 * in order until one gives a session; only when none does is the batch a
 * connection failure, the scheduler's negative feedback.  Each new
 * session gets STARTTLS as its destination's TLS policy asks
 * (deliver_tls.c); a cached session keeps its TLS.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "deliver_cache.h"
#include "deliver_local.h"
#include "deliver_smtp.h"
#include "deliver_tls.h"
#include "smtp.h"
#include "deliver_batch.h"
#include "lists.h"
#include "spool_dest.h"

/* deliver_smtp_reap - close sessions idle past their time (all: every
 * one, and the TLS state, at shutdown) */
void
deliver_smtp_reap(double now, int all)
{
	deliver_cache_reap(now, all);
	if (all)
		deliver_tls_close();
}

/* How long a batch waits for a session the server takes, in cache times
 * and in seconds at most: a refused session defers its recipients only
 * after this. */
#define DELIVER_SMTP_PATIENCE 5
#define DELIVER_SMTP_PATIENCE_MAX 10.0

static pthread_key_t deliver_smtp_res_key;
static pthread_once_t deliver_smtp_res_once = PTHREAD_ONCE_INIT;
static int deliver_smtp_res_ok;

/* deliver_smtp_res_end - a worker thread ends: close its resolver, whose
 * state holds memory res_send allocated (LeakSanitizer saw it leak) */
static void
deliver_smtp_res_end(void *r)
{
	mx_resolver_close(r);
}

/* deliver_smtp_res_init - the key whose destructor closes resolvers */
static void
deliver_smtp_res_init(void)
{
	deliver_smtp_res_ok = pthread_key_create(&deliver_smtp_res_key,
				  deliver_smtp_res_end) == 0;
}

/* deliver_smtp_resolver - this thread's resolver (res_n* state is not
 * shared between threads), made at its first use */
static struct mx_resolver *
deliver_smtp_resolver(const struct delivery_params *p, char *why, size_t whylen)
{
	static __thread struct mx_resolver r;
	static __thread int ready;

	if (!ready) {
		if (mx_resolver_init(&r, p->dns_server, why, whylen) == -1)
			return NULL;
		/* Without the key the resolver works all the same; only
		 * its few bytes stay allocated when the thread ends. */
		if (pthread_once(
			&deliver_smtp_res_once, deliver_smtp_res_init) == 0 &&
		    deliver_smtp_res_ok)
			(void)pthread_setspecific(deliver_smtp_res_key, &r);
		ready = 1;
	}
	return &r;
}

/* deliver_smtp_timeouts - the per-stage timeouts of the transport */
static void
deliver_smtp_timeouts(const struct delivery_params *p, struct smtp_timeouts *t)
{
	t->connect_ms = (int)(p->connect_timeout * 1000);
	t->greeting_ms = (int)(p->helo_timeout * 1000);
	t->helo_ms = (int)(p->helo_timeout * 1000);
	t->command_ms = (int)(p->command_timeout * 1000);
	t->data_ms = (int)(p->data_timeout * 1000);
	t->eod_ms = (int)(p->eod_timeout * 1000);
}

/* deliver_smtp_fail - a status for a local reason */
static void
deliver_smtp_fail(struct smtp_status *st, enum smtp_outcome o, const char *dsn,
    const char *text)
{
	memset(st, 0, sizeof(*st));
	st->outcome = o;
	st->feedback = SMTP_FEEDBACK_NEGATIVE;
	(void)strlcpy(st->dsn, dsn, sizeof(st->dsn));
	(void)strlcpy(st->text, text, sizeof(st->text));
}

/* deliver_smtp_origin - where the batch's sessions come from: its
 * source address, if any, with that address's EHLO name */
static void
deliver_smtp_origin(const struct deliver_batch *b, struct smtp_origin *o)
{
	const struct delivery_source *src =
	    b->sent_from != NULL ? b->sent_from : b->source;

	o->helo =
	    src != NULL && src->helo[0] ? src->helo : b->params->helo_name;
	o->bind = src != NULL ? (const struct sockaddr *)&src->sa : NULL;
	o->bindlen = src != NULL ? src->salen : 0;
}

/* deliver_smtp_family - the family of a socket address as a set */
static unsigned
deliver_smtp_family(int af)
{
	return af == AF_INET	? DELIVER_FAMILY_V4
	       : af == AF_INET6 ? DELIVER_FAMILY_V6
				: 0;
}

/* deliver_smtp_reach - a pool's source of a family the nexthop's
 * addresses l have, when the batch's has none of them: b->sent_from */
static void
deliver_smtp_reach(struct deliver_batch *b, const struct mx_list *l)
{
	unsigned have = 0;
	size_t i;

	if (b->source == NULL || b->source_for == NULL)
		return;
	for (i = 0; i < l->n; i++)
		have |= deliver_smtp_family(l->v[i].addr.ss_family);
	if (have != 0 && !(have & deliver_smtp_family(b->source->sa.ss_family)))
		b->sent_from = b->source_for(b->source_ctx, b->nexthop, have);
}

/* deliver_smtp_connect - open the fresh session c to the nexthop,
 * trying its addresses (MX order) until one gives a session; -1 with st
 * saying why the last one failed */
static int
deliver_smtp_connect(
    struct deliver_batch *b, struct deliver_cached *c, struct smtp_status *st)
{
	char why[300], text[400];
	struct mx_resolver *res;
	struct smtp_timeouts to;
	struct smtp_origin o;
	struct mx_list l;
	enum mx_status ms;
	size_t i, tried = 0;

	if ((res = deliver_smtp_resolver(b->params, why, sizeof(why))) ==
	    NULL) {
		deliver_smtp_fail(st, SMTP_DEFERRED, "4.3.5", why);
		return -1;
	}
	if ((ms = mx_resolve(res, b->nexthop, 25, &l, why, sizeof(why))) !=
	    MX_OK) {
		snprintf(text, sizeof(text),
		    "Host or domain name not found: %s",
		    why[0] ? why : b->nexthop);
		deliver_smtp_fail(st,
		    ms == MX_NOTFOUND ? SMTP_BOUNCED : SMTP_DEFERRED,
		    ms == MX_NOTFOUND ? "5.4.4" : "4.4.3", text);
		/* DNS trouble is not the server's: no negative feedback. */
		st->feedback = SMTP_FEEDBACK_POSITIVE;
		mx_list_free(&l);
		return -1;
	}
	deliver_smtp_timeouts(b->params, &to);
	deliver_smtp_reach(b, &l);
	deliver_smtp_origin(b, &o);
	for (i = 0; i < l.n; i++) {
		/* From a source address: only the addresses of its family. */
		if (o.bind != NULL &&
		    l.v[i].addr.ss_family != o.bind->sa_family)
			continue;
		tried++;
		if (deliver_tls_open(b->params, b->nexthop, &o, res, &l, i,
			&c->s, &to, st) == 0) {
			mx_list_free(&l);
			return 0;
		}
		smtp_session_close(&c->s);
	}
	if (tried == 0)
		deliver_smtp_fail(st, SMTP_DEFERRED, "4.4.3",
		    l.n == 0 ? "no address"
			     : "no address of the source address's family");
	mx_list_free(&l);
	return -1;
}

/* deliver_smtp_session - a session to the nexthop: an idle one, else a
 * new one (deliver_cache.c says when one may be opened); when the server
 * refuses a new one, the batch waits for one of ours to come back, or
 * for the server to take one, up to DELIVER_SMTP_PATIENCE cache times
 * (DELIVER_SMTP_PATIENCE_MAX seconds at most), instead of failing at
 * once.  NULL with st saying why not. */
static struct deliver_cached *
deliver_smtp_session(struct deliver_batch *b, struct smtp_status *st)
{
	double ttl = (double)b->params->cache_time;
	double wait = DELIVER_SMTP_PATIENCE * ttl, deadline;
	struct deliver_cached *c;
	int retry = 0;

	if (wait > DELIVER_SMTP_PATIENCE_MAX)
		wait = DELIVER_SMTP_PATIENCE_MAX;
	deadline = clock_now() + wait;
	for (;;) {
		if ((c = deliver_cache_get(b->dest, deadline, retry)) == NULL) {
			deliver_smtp_fail(
			    st, SMTP_DEFERRED, "4.3.0", "out of memory");
			return NULL;
		}
		if (!c->fresh)
			return c;
		if (deliver_smtp_connect(b, c, st) == 0) {
			deliver_cache_opened(c);
			return c;
		}
		/* 421: a server that takes no more sessions now (a limiter,
		 * SCHEDULER_README); any other failure fails the batch. */
		if (!deliver_cache_failed(c,
			st->feedback == SMTP_FEEDBACK_NEGATIVE &&
			    st->code == 421,
			ttl) ||
		    clock_now() >= deadline)
			return NULL;
		retry = 1;
	}
}

/* deliver_smtp_verp - <prefix>+user=host@domain for one recipient */
static void
deliver_smtp_verp(
    const struct deliver_batch *b, const char *rcpt, char *out, size_t outlen)
{
	const char *at = strrchr(rcpt, '@');

	if (at == NULL ||
	    (size_t)snprintf(out, outlen, "%s+%.*s=%s@%s", b->verp_prefix,
		(int)(at - rcpt), rcpt, at + 1, b->verp_domain) >= outlen)
		(void)strlcpy(out, b->sender, outlen); /* it is larger */
}

/* deliver_smtp_set - results [lo, hi) from the client's outcomes, or
 * from one status for all when r is NULL */
static void
deliver_smtp_set(struct deliver_batch *b, size_t lo, size_t hi,
    const struct smtp_rcpt *r, const struct smtp_status *all)
{
	static const enum deliver_outcome map[] = {
	    DELIVER_SENT, DELIVER_DEFERRED, DELIVER_BOUNCED};
	const struct smtp_status *st;
	size_t i;

	for (i = lo; i < hi; i++) {
		st = r != NULL ? &r[i].st : all;
		b->res[i].outcome = map[st->outcome];
		b->res[i].code = st->code;
		(void)strlcpy(b->res[i].dsn, st->dsn, sizeof(b->res[i].dsn));
		(void)strlcpy(b->res[i].text, st->text, sizeof(b->res[i].text));
	}
}

/* One transaction of a batch: its envelope sender and, for a copy of
 * its own, its header fields (owned) and its text with them; idx, the
 * transaction it holds (-1: none). */
struct deliver_copy {
	long idx;
	char sender[2 * NAME_ADDR_MAX + 2];
	char *head;
	struct smtp_data_msg dm;
	struct smtp_xact x;
};

/* A batch's transactions as they are made: the one on the wire, the one
 * whose envelope goes behind its final dot, and the one after, made
 * while the server answers (smtp_xact.h's wait). */
struct deliver_copies {
	struct deliver_batch *b;
	const struct smtp_data_msg *text;
	struct smtp_rcpt *rcpts;
	size_t step, ntx;
	long want; /* what the wait makes */
	struct deliver_copy ring[3];
};

/* deliver_smtp_copy - transaction k of the batch in its ring slot, made
 * unless it is there already: before the one in front of it is sent
 * (its envelope may go behind that one's final dot, SIZE= counting its
 * own fields); -1 when its header fields cannot be made */
static int
deliver_smtp_copy(struct deliver_copies *dc, long k)
{
	struct deliver_copy *cp = &dc->ring[k % 3];
	struct deliver_batch *b = dc->b;
	size_t lo = (size_t)k * dc->step, headlen;
	size_t hi = lo + dc->step < b->n ? lo + dc->step : b->n;

	if (cp->idx == k)
		return 0;
	cp->idx = -1;
	if (b->verp)
		deliver_smtp_verp(
		    b, b->addr[lo], cp->sender, sizeof(cp->sender));
	else
		(void)strlcpy(cp->sender, b->sender,
		    sizeof(cp->sender)); /* twice its size */
	cp->dm = *dc->text;
	free(cp->head);
	cp->head = NULL;
	if (b->head != NULL) {
		if (rcpt_head_make(b->head, b->addr[lo], &cp->head, &headlen) ==
		    -1)
			return -1;
		if (rcpt_head_whole(b->head))
			/* the copy is all in its head: no shared text */
			smtp_data_whole(&cp->dm, cp->head, headlen);
		else
			smtp_data_head(&cp->dm, cp->head, headlen);
	}
	cp->x = (struct smtp_xact){
	    cp->sender, dc->rcpts + lo, hi - lo, &cp->dm, NULL, NULL};
	cp->idx = k;
	return 0;
}

/* deliver_smtp_ahead - the wait of a transaction: the one two places
 * behind it made while the server answers (a failure shows again when
 * its turn comes) */
static void
deliver_smtp_ahead(void *arg)
{
	struct deliver_copies *dc = arg;

	(void)deliver_smtp_copy(dc, dc->want);
}

/* deliver_smtp_group - transaction x (results [lo, lo + x->n)) over
 * *cp, then next (NULL: none) for certain (smtp_xact.h); a cached
 * session that went stale (closed by the server meanwhile, or after
 * the last final dot) is replaced by one fresh session, which is not a
 * failure; -1 when there is no session to go on with */
static int
deliver_smtp_group(struct deliver_batch *b, struct deliver_cached **cp,
    const struct smtp_xact *x, size_t lo, const struct smtp_xact *next)
{
	struct smtp_status st;
	size_t i;
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		if (*cp == NULL &&
		    (*cp = deliver_smtp_session(b, &st)) == NULL) {
			/* No server answered: relay=none, as Postfix logs;
			 * the reason names the addresses tried. */
			(void)strlcpy(b->relay, "none", sizeof(b->relay));
			deliver_smtp_set(b, lo, lo + x->n, NULL, &st);
			b->negative = st.feedback == SMTP_FEEDBACK_NEGATIVE;
			return -1;
		}
		for (i = 0; i < x->n; i++)
			memset(&x->r[i].st, 0, sizeof(x->r[i].st));
		if (smtp_xact_run(&(*cp)->s, x, next, &st) == SMTP_XACT_DONE) {
			(void)strlcpy(
			    b->relay, (*cp)->s.peer, sizeof(b->relay));
			b->tls = SPOOL_DEST_TLS_NONE + (*cp)->s.tls_state;
			deliver_smtp_set(b, lo, lo + x->n, x->r - lo, NULL);
			return 0;
		}
		deliver_cache_free(*cp);
		*cp = NULL;
	}
	deliver_smtp_fail(&st, SMTP_DEFERRED, "4.4.2",
	    "lost connection before the transaction");
	deliver_smtp_set(b, lo, lo + x->n, NULL, &st);
	return -1;
}

/* deliver_smtp - one batch: one transaction, or one per recipient with
 * VERP (each has its own envelope sender) or with header fields of its
 * own (rcpt_head.c), over one session; the next copy is made before
 * this one goes, so its envelope can go behind this one's final dot, and
 * the one after it while the server takes this one's text */
void
deliver_smtp(struct deliver_batch *b)
{
	struct deliver_copies dc = {.b = b};
	struct deliver_cached *c;
	struct smtp_data_msg text;
	struct smtp_status hst;
	struct smtp_xact *x, *next;
	size_t i, lo;
	long k;

	dc.step = b->verp || b->head != NULL ? 1 : (b->n > 0 ? b->n : 1);
	dc.ntx = (b->n + dc.step - 1) / dc.step;
	for (k = 0; k < 3; k++)
		dc.ring[k].idx = -1;
	(void)strlcpy(b->relay, b->nexthop, sizeof(b->relay));
	if ((dc.rcpts = calloc(b->n, sizeof(*dc.rcpts))) == NULL) {
		deliver_batch_all(
		    b, DELIVER_DEFERRED, 0, "4.3.0", "out of memory");
		return;
	}
	/* A copy per recipient sends the text many times: keep it
	 * converted in memory for them. */
	if (smtp_data_open(&text, b->datafd, b->datasize, dc.ntx > 1) == -1) {
		deliver_batch_all(
		    b, DELIVER_DEFERRED, 0, "4.3.0", "cannot read the message");
		free(dc.rcpts);
		return;
	}
	dc.text = &text;
	for (i = 0; i < b->n; i++)
		dc.rcpts[i].addr = b->addr[i];
	c = NULL; /* deliver_smtp_group takes or opens one */
	for (k = 0; k < (long)dc.ntx; k++) {
		lo = (size_t)k * dc.step;
		if (deliver_smtp_copy(&dc, k) == -1) {
			deliver_smtp_fail(&hst, SMTP_DEFERRED, "4.3.0",
			    "cannot make the recipient's header");
			deliver_smtp_set(b, lo, b->n, NULL, &hst);
			break;
		}
		x = &dc.ring[k % 3].x;
		next =
		    k + 1 < (long)dc.ntx && deliver_smtp_copy(&dc, k + 1) == 0
			? &dc.ring[(k + 1) % 3].x
			: NULL;
		dc.want = k + 2;
		x->wait = k + 2 < (long)dc.ntx ? deliver_smtp_ahead : NULL;
		x->wait_arg = &dc;
		if (deliver_smtp_group(b, &c, x, lo, next) == -1) {
			/* No session: the rest shares the failure. */
			for (i = lo + x->n; i < b->n; i++)
				b->res[i] = b->res[lo];
			break;
		}
	}
	/* A session from another address than the destination's own is
	 * not kept for it. */
	if (c != NULL && b->sent_from != NULL)
		deliver_cache_free(c);
	else if (c != NULL)
		deliver_cache_put(c, (double)b->params->cache_time);
	for (k = 0; k < 3; k++)
		free(dc.ring[k].head);
	smtp_data_close(&text);
	free(dc.rcpts);
}
