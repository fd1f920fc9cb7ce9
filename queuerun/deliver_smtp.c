/*
 * deliver_smtp.c - the smtp transport: a batch becomes one transaction
 * of the SMTP client (smtp_session.c, smtp_xact.c) over a session that is
 * reused when one to the same nexthop is idle in the cache.
 *
 * Nexthops: "[host]:port" or "[host]" connect to host's addresses, no MX;
 * "host" or "host:port" go through MX (mx_*.c when it is there, else
 * host's own addresses, the RFC 5321 fallback).  The addresses are tried
 * in order until one gives a session; only when none does is the batch a
 * connection failure, the scheduler's negative feedback.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "queuerun_impl.h"
#include "smtp_data.h"
#include "smtp_session.h"
#include "smtp_xact.h"

struct deliver_cached {
	struct deliver_cached *next;
	char *nexthop;
	double expires;
	struct smtp_session s;
};

static pthread_mutex_t deliver_smtp_mu = PTHREAD_MUTEX_INITIALIZER;
static struct deliver_cached *deliver_smtp_cache;

/* deliver_smtp_take - an idle session to this nexthop, or NULL */
static struct deliver_cached *
deliver_smtp_take(const char *nexthop)
{
	struct deliver_cached **pp, *c = NULL;

	pthread_mutex_lock(&deliver_smtp_mu);
	for (pp = &deliver_smtp_cache; *pp != NULL; pp = &(*pp)->next)
		if (strcmp((*pp)->nexthop, nexthop) == 0) {
			c = *pp;
			*pp = c->next;
			c->next = NULL;
			break;
		}
	pthread_mutex_unlock(&deliver_smtp_mu);
	return c;
}

/* deliver_smtp_free - QUIT, close and free a session */
static void
deliver_smtp_free(struct deliver_cached *c)
{
	smtp_session_close(&c->s);
	free(c->nexthop);
	free(c);
}

/* deliver_smtp_put - keep a session for the next batch, or close it */
static void
deliver_smtp_put(struct deliver_cached *c, double ttl)
{
	if (c->s.broken || ttl <= 0) {
		deliver_smtp_free(c);
		return;
	}
	c->expires = deliver_now() + ttl;
	pthread_mutex_lock(&deliver_smtp_mu);
	c->next = deliver_smtp_cache;
	deliver_smtp_cache = c;
	pthread_mutex_unlock(&deliver_smtp_mu);
}

/* deliver_smtp_reap - close sessions idle past their time (all: every
 * one, at shutdown); the QUITs happen outside the lock */
void
deliver_smtp_reap(double now, int all)
{
	struct deliver_cached **pp, *c, *dead = NULL;

	pthread_mutex_lock(&deliver_smtp_mu);
	for (pp = &deliver_smtp_cache; (c = *pp) != NULL;) {
		if (all || c->expires <= now) {
			*pp = c->next;
			c->next = dead;
			dead = c;
		} else
			pp = &c->next;
	}
	pthread_mutex_unlock(&deliver_smtp_mu);
	while ((c = dead) != NULL) {
		dead = c->next;
		deliver_smtp_free(c);
	}
}

/* deliver_smtp_split - nexthop into host and port; *mx when MX applies */
static int
deliver_smtp_split(const char *nexthop, char *host, size_t hostlen, char *port,
    size_t portlen, int *mx)
{
	const char *end, *colon;
	size_t n;

	strlcpy(port, "25", portlen);
	if (nexthop[0] == '[') {
		if ((end = strchr(nexthop, ']')) == NULL)
			return -1;
		n = (size_t)(end - nexthop - 1);
		if (end[1] == ':')
			strlcpy(port, end + 2, portlen);
		else if (end[1] != '\0')
			return -1;
		*mx = 0;
		nexthop++;
	} else {
		n = (colon = strrchr(nexthop, ':')) != NULL
			? (size_t)(colon - nexthop)
			: strlen(nexthop);
		if (colon != NULL)
			strlcpy(port, colon + 1, portlen);
		*mx = 1;
	}
	if (n == 0 || n >= hostlen)
		return -1;
	memcpy(host, nexthop, n);
	host[n] = '\0';
	return 0;
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
	strlcpy(st->dsn, dsn, sizeof(st->dsn));
	strlcpy(st->text, text, sizeof(st->text));
}

/* deliver_smtp_connect - a new session to the nexthop, trying its
 * addresses in order; NULL with st saying why */
static struct deliver_cached *
deliver_smtp_connect(const struct qr_batch *b, struct smtp_status *st)
{
	char host[QR_HOST_MAX], port[16], text[400];
	struct addrinfo hints, *res, *ai;
	struct smtp_timeouts to;
	struct deliver_cached *c;
	int mx, r;

	if (deliver_smtp_split(b->nexthop, host, sizeof(host), port,
		sizeof(port), &mx) == -1) {
		deliver_smtp_fail(st, SMTP_DEFERRED, "4.3.5", "bad nexthop");
		return NULL;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_ADDRCONFIG;
	if ((r = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(text, sizeof(text),
		    "Host or domain name not found: "
		    "%s: %s",
		    host, gai_strerror(r));
		deliver_smtp_fail(st,
		    r == EAI_NONAME ? SMTP_BOUNCED : SMTP_DEFERRED,
		    r == EAI_NONAME ? "5.4.4" : "4.4.3", text);
		return NULL;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->nexthop = strdup(b->nexthop)) == NULL) {
		free(c);
		freeaddrinfo(res);
		deliver_smtp_fail(st, SMTP_DEFERRED, "4.3.0", "out of memory");
		return NULL;
	}
	deliver_smtp_timeouts(b->params, &to);
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (smtp_session_open(&c->s, host, ai->ai_addr, ai->ai_addrlen,
			b->params->helo_name, &to, st) == 0) {
			freeaddrinfo(res);
			return c;
		}
		smtp_session_close(&c->s);
	}
	freeaddrinfo(res);
	free(c->nexthop);
	free(c);
	return NULL;
}

/* deliver_smtp_verp - <prefix>+user=host@domain for one recipient */
static void
deliver_smtp_verp(
    const struct qr_batch *b, const char *rcpt, char *out, size_t outlen)
{
	const char *at = strrchr(rcpt, '@');

	if (at == NULL ||
	    (size_t)snprintf(out, outlen, "%s+%.*s=%s@%s", b->verp_prefix,
		(int)(at - rcpt), rcpt, at + 1, b->verp_domain) >= outlen)
		strlcpy(out, b->sender, outlen);
}

/* deliver_smtp_results - the client's per-recipient outcomes */
static void
deliver_smtp_results(struct qr_batch *b, const struct smtp_rcpt *r)
{
	static const enum qr_outcome map[] = {QR_SENT, QR_DEFERRED, QR_BOUNCED};
	size_t i;

	for (i = 0; i < b->n; i++) {
		b->res[i].outcome = map[r[i].st.outcome];
		b->res[i].code = r[i].st.code;
		strlcpy(b->res[i].dsn, r[i].st.dsn, sizeof(b->res[i].dsn));
		strlcpy(b->res[i].text, r[i].st.text, sizeof(b->res[i].text));
	}
}

/* deliver_smtp - one batch, one transaction */
void
deliver_smtp(struct qr_batch *b)
{
	char sender[2 * SPOOL_ADDR_MAX + 2];
	struct deliver_cached *c;
	struct smtp_data_msg dm;
	struct smtp_status st;
	struct smtp_rcpt *rcpts;
	size_t i;
	int attempt;

	strlcpy(b->relay, b->nexthop, sizeof(b->relay));
	if ((rcpts = calloc(b->n, sizeof(*rcpts))) == NULL) {
		deliver_all(b, QR_DEFERRED, 0, "4.3.0", "out of memory");
		return;
	}
	if (smtp_data_open(&dm, b->datafd, b->datasize) == -1) {
		deliver_all(
		    b, QR_DEFERRED, 0, "4.3.0", "cannot read the message");
		free(rcpts);
		return;
	}
	if (b->verp)
		deliver_smtp_verp(b, b->addr[0], sender, sizeof(sender));
	else
		strlcpy(sender, b->sender, sizeof(sender));
	c = deliver_smtp_take(b->nexthop);
	/* A cached session may have been closed by the server meanwhile
	 * (STALE): then one fresh session, which is not a failure. */
	for (attempt = 0; attempt < 2; attempt++) {
		if (c == NULL && (c = deliver_smtp_connect(b, &st)) == NULL) {
			deliver_all(b,
			    st.outcome == SMTP_BOUNCED ? QR_BOUNCED
						       : QR_DEFERRED,
			    st.code, st.dsn, st.text);
			b->negative = st.feedback == SMTP_FEEDBACK_NEGATIVE;
			free(rcpts);
			return;
		}
		for (i = 0; i < b->n; i++) {
			memset(&rcpts[i], 0, sizeof(rcpts[i]));
			rcpts[i].addr = b->addr[i];
		}
		if (smtp_xact_run(&c->s, sender, rcpts, b->n, &dm, &st) ==
		    SMTP_XACT_DONE)
			break;
		deliver_smtp_free(c);
		c = NULL;
	}
	if (c == NULL) {
		deliver_all(b, QR_DEFERRED, 0, "4.4.2",
		    "lost connection before the transaction");
		free(rcpts);
		return;
	}
	strlcpy(b->relay, c->s.peer, sizeof(b->relay));
	deliver_smtp_results(b, rcpts);
	deliver_smtp_put(c, (double)b->params->cache_time);
	free(rcpts);
}
