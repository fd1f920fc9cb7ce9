/*
 * cluster.c - the leases this runner holds in Redis, per destination
 * key, and the public side of libcluster (cluster.h).
 *
 * Per key the runner counts its leases (held) and the deliveries that
 * use them (inuse).  A delivery is covered by a lease from its start;
 * the session it opened keeps the lease while it stays open, idle in
 * the cache included, because the receiver counts open sessions, not
 * deliveries.  So a lease is given back only when the runner holds more
 * than max(deliveries, sessions open) for the key: at the end of a
 * delivery (cluster_done) or when cluster_tick sees that idle sessions
 * closed.  A delivery that finds held > inuse needs no new lease (it
 * takes an idle session, or opens one under the spare lease), so a
 * runner draining a large post to one destination asks Redis only when
 * its sessions grow (a new lease, the dead state with it) and, with a
 * rate set, at each start (one round trip per delivery, never per
 * recipient).
 *
 * The leases are spread over the nodes that want them.  A TAKE that
 * found every lease held puts its node on the key's wait set and in
 * CLUSTER_WANTED_KEY, for a moment; a runner holding leases looks at
 * that key every CLUSTER_SHARE_POLL, and while another node is in it
 * (or, for a runner done with a key, any) asks SHARE of
 * each key where it holds more than one lease or is done: the node's
 * surplus, what it holds beyond one more than the waiting node that
 * holds fewest (cluster_script.c).  The runner gives that back as its
 * sessions end: each tick, right after the outcomes were collected and
 * before new deliveries start, closes that many of its idle sessions
 * (struct cluster_sessions' yield), keeping one at least and those its
 * running deliveries are about to take; their leases go back at once
 * when the receiver answered the QUIT, else after the handover.  A
 * runner done with the destination (nothing waiting or running in its
 * scheduler) closes every idle session while any node waits, so it
 * does not hold the window for its cache time.  A node one lease from
 * the others gives nothing back and takes nothing more (TAKE refuses
 * it while a waiting node holds fewer), so the nodes settle, one
 * session each at least, without trading leases to and fro.
 *
 * A session the receiver refused (421) had a lease one too many: the
 * tick that tells every node (LEARN) gives that lease back too, and the
 * delivery waits (deliver_cache.c) until a lease is taken anew for it
 * under the lowered window (cluster_regrant), instead of trying again
 * on its own while the window still counts it.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "cluster_redis.h"
#include "log.h"

#define CLUSTER_MEMBER_MAX 96
/* Members renewed or released in one round trip at most. */
#define CLUSTER_CHUNK 32
/* How long the leases of sessions closed for another node are kept
 * after the QUIT, so that the receiver has counted them closed before
 * that node opens its own (seconds). */
#define CLUSTER_HANDOVER 0.25
/* How long a key refused a new lease answers FULL without asking Redis
 * again (seconds): a runner at its share would otherwise ask at each
 * delivery's start (the scheduler tries one more each time one ends),
 * while the others take their leases back no sooner. */
#define CLUSTER_FULL_HOLD 0.02
/* How often a runner refused leases sets CLUSTER_WANTED_KEY again at
 * most (seconds; it lasts CLUSTER_WANT_MS). */
#define CLUSTER_HINT_EVERY 0.1

struct cluster_key {
	struct cluster_key *next;
	char *key, *tag;
	int inuse;	   /* deliveries running under these leases */
	int held;	   /* leases: ids[0..held) */
	int giving;	   /* of them, going back at handover: their sessions
			      closed, not to be used again */
	int give;	   /* more to give back as sessions end (SHARE) */
	double full_until; /* refused a new lease lately: FULL till then */
	int cap;
	unsigned long *ids;
	struct cluster_limits lim; /* as the last cluster_take was told */
	double handover; /* no lease given back before (CLUSTER_HANDOVER) */
	struct cluster_rkeys rk;
};

struct cluster {
	struct cluster_redis r;
	char node[64];
	long pid;
	long long lease_ms;
	int expected;
	unsigned long next_id;
	double next_renew;
	double next_share; /* when CLUSTER_WANTED_KEY is looked at next */
	double next_hint;  /* when it may be set again */
	struct cluster_key *keys;
};

/* cluster_open - the settings; NULL when off or without memory */
struct cluster *
cluster_open(const struct cluster_settings *cs)
{
	struct cluster *c;

	if (cs->cluster_redis[0] == '\0')
		return NULL;
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		log_warn("cluster: no memory; limits are not shared");
		return NULL;
	}
	cluster_redis_init(&c->r, cs);
	/* hiredis writes with send(2) without MSG_NOSIGNAL: a Redis that
	 * goes away must fail a command, not kill the runner (mj_queuerun
	 * -1 included, which has no other socket to ignore it for). */
	(void)signal(SIGPIPE, SIG_IGN);
	if (cs->cluster_node[0] != '\0')
		(void)strlcpy(c->node, cs->cluster_node, sizeof(c->node));
	else if (gethostname(c->node, sizeof(c->node)) == -1)
		(void)strlcpy(c->node, "node", sizeof(c->node));
	c->node[sizeof(c->node) - 1] = '\0';
	c->pid = (long)getpid();
	(void)snprintf(
	    c->r.name, sizeof(c->r.name), "mjq:%s:%ld", c->node, c->pid);
	c->lease_ms = cs->cluster_lease_time * 1000;
	c->expected = (int)cs->cluster_expected_nodes;
	return c;
}

/* cluster_key_find - the key's record, made when create is set */
static struct cluster_key *
cluster_key_find(struct cluster *c, const char *key, const char *tag)
{
	struct cluster_key *k;

	for (k = c->keys; k != NULL; k = k->next)
		if (strcmp(k->key, key) == 0)
			return k;
	if (tag == NULL || (k = calloc(1, sizeof(*k))) == NULL)
		return NULL;
	if ((k->key = strdup(key)) == NULL || (k->tag = strdup(tag)) == NULL ||
	    cluster_script_keys(key, &k->rk) == -1) {
		free(k->key);
		free(k->tag);
		free(k);
		return NULL;
	}
	k->next = c->keys;
	c->keys = k;
	return k;
}

/* cluster_member - the lease member of id: node:pid:id */
static void
cluster_member(const struct cluster *c, unsigned long id, char *out)
{
	(void)snprintf(
	    out, CLUSTER_MEMBER_MAX, "%s:%ld:%lu", c->node, c->pid, id);
}

/* cluster_members - a command or script with members ids[0..n) as its
 * last arguments, in chunks; 0, or -1 when Redis failed */
static int
cluster_members(struct cluster *c, struct cluster_key *k,
    const unsigned long *ids, int n, int renew, double now)
{
	char mem[CLUSTER_CHUNK][CLUSTER_MEMBER_MAX], ms[32];
	const char *argv[CLUSTER_CHUNK + 2], *keys[1] = {k->rk.lease};
	redisReply *rep;
	int i, j, argc;

	(void)snprintf(ms, sizeof(ms), "%lld", c->lease_ms);
	for (i = 0; i < n; i += CLUSTER_CHUNK) {
		argc = 0;
		if (!renew) {
			argv[argc++] = "ZREM";
			argv[argc++] = k->rk.lease;
		} else
			argv[argc++] = ms;
		for (j = 0; j < CLUSTER_CHUNK && i + j < n; j++) {
			cluster_member(c, ids[i + j], mem[j]);
			argv[argc++] = mem[j];
		}
		rep = renew ? cluster_redis_run(&c->r, CLUSTER_SCRIPT_RENEW, 1,
				  keys, argc, argv, now)
			    : cluster_redis_command(&c->r, argc, argv, now);
		if (rep == NULL)
			return -1;
		freeReplyObject(rep);
	}
	return 0;
}

/* cluster_trim - give back the leases beyond want */
static void
cluster_trim(struct cluster *c, struct cluster_key *k, int want, double now)
{
	int n = k->held - want;

	if (n <= 0)
		return;
	k->held = want;
	if (k->giving > want)
		k->giving = want;
	k->full_until = 0; /* one is free now: worth asking again */
	if (cluster_redis_connected(&c->r))
		(void)cluster_members(c, k, k->ids + want, n, 0, now);
}

/* cluster_room - room in k->ids for one lease more; 0, or -1 */
static int
cluster_room(struct cluster_key *k)
{
	unsigned long *ids;

	if (k->held < k->cap)
		return 0;
	if ((ids = reallocarray(k->ids, k->cap + 8, sizeof(*ids))) == NULL)
		return -1;
	k->ids = ids;
	k->cap += 8;
	return 0;
}

/* cluster_take_run - the TAKE script for k, for a new lease member
 * ("": none); its code (CLUSTER_TAKE_*), -1 when Redis failed */
static long long
cluster_take_run(struct cluster *c, struct cluster_key *k, const char *member,
    double now, double *wait)
{
	char lease[32], limit[16], iv[32], initial[16];
	const char *args[6] = {member, lease, limit, iv, initial, c->node},
		   *keys[5];
	const char *hkeys[1] = {CLUSTER_WANTED_KEY}, *hargs[1] = {c->node};
	const struct cluster_limits *lim = &k->lim;
	redisReply *rep;
	long long code, ms;

	(void)snprintf(lease, sizeof(lease), "%lld", c->lease_ms);
	(void)snprintf(limit, sizeof(limit), "%d", lim->limit);
	(void)snprintf(
	    iv, sizeof(iv), "%lld", (long long)(lim->interval * 1000));
	(void)snprintf(initial, sizeof(initial), "%d",
	    lim->initial > 0 ? lim->initial : 1);
	keys[0] = k->rk.lease, keys[1] = k->rk.rate, keys[2] = k->rk.dead;
	keys[3] = k->rk.cap, keys[4] = k->rk.wait;
	if ((rep = cluster_redis_run(
		 &c->r, CLUSTER_SCRIPT_TAKE, 5, keys, 6, args, now)) == NULL)
		return -1;
	if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2) {
		freeReplyObject(rep);
		return -1;
	}
	code = rep->element[0]->integer;
	ms = rep->element[1]->integer;
	freeReplyObject(rep);
	*wait = ms > 0 ? (double)ms / 1000 : 0;
	/* Every lease held: the holders are to look at their shares. */
	if (code == CLUSTER_TAKE_FULL && member[0] != '\0')
		k->full_until = now + CLUSTER_FULL_HOLD;
	if (code == CLUSTER_TAKE_FULL && now >= c->next_hint &&
	    (rep = cluster_redis_run(&c->r, CLUSTER_SCRIPT_WANT, 1, hkeys, 1,
		 hargs, now)) != NULL) {
		freeReplyObject(rep);
		c->next_hint = now + CLUSTER_HINT_EVERY;
	}
	return code;
}

/* cluster_take - may a delivery to key start (cluster.h) */
enum cluster_answer
cluster_take(struct cluster *c, const char *key, const char *tag,
    const struct cluster_limits *lim, double now, double *wait)
{
	char member[CLUSTER_MEMBER_MAX] = "";
	struct cluster_key *k;
	long long code;

	*wait = 0;
	if (!cluster_redis_up(&c->r, now) ||
	    (k = cluster_key_find(c, key, tag)) == NULL)
		return CLUSTER_LOCAL;
	k->lim = *lim;
	if (k->held - k->giving <= k->inuse) {
		if (now < k->full_until)
			return CLUSTER_FULL;
		if (cluster_room(k) == -1)
			return CLUSTER_LOCAL;
		cluster_member(c, ++c->next_id, member);
	}
	/* A spare lease and no rate: nothing to ask (the dead state comes
	 * with the next new lease, or from our own feedback). */
	if (member[0] == '\0' && lim->interval <= 0) {
		k->inuse++;
		return CLUSTER_GO;
	}
	if ((code = cluster_take_run(c, k, member, now, wait)) == -1)
		return CLUSTER_LOCAL;
	if (code != CLUSTER_TAKE_GO)
		return code == CLUSTER_TAKE_FULL   ? CLUSTER_FULL
		       : code == CLUSTER_TAKE_RATE ? CLUSTER_RATE
						   : CLUSTER_DEAD;
	if (member[0] != '\0')
		k->ids[k->held++] = c->next_id;
	k->inuse++;
	return CLUSTER_GO;
}

/* cluster_done - a delivery ended; open sessions keep their leases */
void
cluster_done(struct cluster *c, const char *key, int open, double now)
{
	struct cluster_key *k;

	if ((k = cluster_key_find(c, key, NULL)) == NULL || k->inuse == 0)
		return;
	k->inuse--;
	cluster_trim(
	    c, k, (open > k->inuse ? open : k->inuse) + k->giving, now);
}

/* cluster_script1 - a script on one destination's keys: which (its
 * Redis keys), and one or two arguments; the reply freed */
static void
cluster_script1(struct cluster *c, enum cluster_script s, const char *key,
    int which, long long a1, long long a2, double now)
{
	struct cluster_rkeys rk;
	char arg[2][32];
	const char *keys[2], *args[2] = {arg[0], arg[1]};
	redisReply *rep;
	int nkeys = 0;

	if (cluster_script_keys(key, &rk) == -1)
		return;
	if (which & 1)
		keys[nkeys++] = rk.lease;
	if (which & 2)
		keys[nkeys++] = rk.dead;
	if (which & 4)
		keys[nkeys++] = rk.cap;
	(void)snprintf(arg[0], sizeof(arg[0]), "%lld", a1);
	(void)snprintf(arg[1], sizeof(arg[1]), "%lld", a2);
	if ((rep = cluster_redis_run(&c->r, s, nkeys, keys,
		 s == CLUSTER_SCRIPT_LEARN ? 2 : 1, args, now)) != NULL)
		freeReplyObject(rep);
}

/* cluster_dead - tell every node the destination died, or lives */
void
cluster_dead(struct cluster *c, const char *key, double secs, double now)
{
	cluster_script1(
	    c, CLUSTER_SCRIPT_DEAD, key, 2, (long long)(secs * 1000), 0, now);
}

/* cluster_learn - the receiver's session limit, for every node */
void
cluster_learn(
    struct cluster *c, const char *key, int refused, double learn, double now)
{
	cluster_script1(c, CLUSTER_SCRIPT_LEARN, key, 1 | 4,
	    (long long)(learn * 1000), refused, now);
}

/* cluster_regrant - leases taken anew, under the window, for the
 * deliveries refused a session that wait (Redis gone: they go on under
 * the local shares, without one) */
static void
cluster_regrant(struct cluster *c, struct cluster_key *k,
    const struct cluster_sessions *ss, double now)
{
	char member[CLUSTER_MEMBER_MAX];
	int n = ss->waiting(k->tag);
	long long code;
	double wait;

	for (; n > 0; n--) {
		if (!cluster_redis_connected(&c->r)) {
			(void)ss->grant(k->tag);
			continue;
		}
		if (cluster_room(k) == -1)
			return;
		cluster_member(c, c->next_id + 1, member);
		if ((code = cluster_take_run(c, k, member, now, &wait)) == -1)
			continue; /* Redis gone since: as above next time */
		if (code != CLUSTER_TAKE_GO)
			return;
		k->ids[k->held++] = ++c->next_id;
		if (ss->grant(k->tag) == -1) {
			cluster_trim(c, k, k->held - 1, now);
			return;
		}
	}
}

/* cluster_wanted - does a node wait for a lease of any destination
 * (CLUSTER_WANTED_KEY): 1 another node, 2 only this node's runners,
 * 0 none */
static int
cluster_wanted(struct cluster *c, double now)
{
	const char *keys[1] = {CLUSTER_WANTED_KEY}, *args[1] = {c->node};
	redisReply *rep;
	int yes = 0;

	if ((rep = cluster_redis_run(
		 &c->r, CLUSTER_SCRIPT_WANTED, 1, keys, 1, args, now)) == NULL)
		return 0;
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 &&
	    rep->element[0]->type == REDIS_REPLY_INTEGER &&
	    rep->element[1]->type == REDIS_REPLY_INTEGER)
		yes = rep->element[0]->integer > 0   ? 1
		      : rep->element[1]->integer > 0 ? 2
						     : 0;
	freeReplyObject(rep);
	return yes;
}

/* cluster_fair - SHARE for k: how many leases this runner is to give
 * back as its sessions end (into k->give, one kept at least), and
 * whether any node waits (1, else 0) */
static int
cluster_fair(struct cluster *c, struct cluster_key *k, double now)
{
	char giving[16];
	const char *keys[2] = {k->rk.lease, k->rk.wait};
	const char *args[2] = {c->node, giving};
	redisReply *rep;
	long long surplus = 0, waiting = 0;
	int mine = k->held - k->giving;

	(void)snprintf(giving, sizeof(giving), "%d", k->giving);
	if ((rep = cluster_redis_run(
		 &c->r, CLUSTER_SCRIPT_SHARE, 2, keys, 2, args, now)) == NULL)
		return 0;
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 &&
	    rep->element[0]->type == REDIS_REPLY_INTEGER &&
	    rep->element[1]->type == REDIS_REPLY_INTEGER) {
		surplus = rep->element[0]->integer;
		waiting = rep->element[1]->integer;
	}
	freeReplyObject(rep);
	k->give = surplus < mine - 1 ? (int)surplus : mine - 1;
	if (k->give < 0)
		k->give = 0;
	return waiting > 0;
}

/* cluster_yield - close the idle sessions to k that go for another
 * node (max: how many, -1: all); the leases of those the receiver
 * answered the QUIT of go back at once (the tick's trim), the others'
 * after the handover */
static void
cluster_yield(struct cluster_key *k, const struct cluster_sessions *ss, int max,
    double now)
{
	int before = ss->open(k->tag), answered, closed;

	answered = ss->yield(k->tag, max);
	if ((closed = before - ss->open(k->tag)) <= 0)
		return;
	k->give = k->give > closed ? k->give - closed : 0;
	if (closed <= answered)
		return;
	k->giving += closed - answered;
	if (k->giving > k->held - k->inuse)
		k->giving = k->held - k->inuse;
	k->handover = now + CLUSTER_HANDOVER;
}

/* cluster_tick_key - one key's turn of cluster_tick: refusals,
 * regrants, sessions closed for other nodes (wanted: a node waits
 * lately), the leases of closed sessions back after their handover */
static void
cluster_tick_key(struct cluster *c, struct cluster_key *k,
    const struct cluster_sessions *ss, int split, int wanted, double now)
{
	int n, want, done = k->inuse == 0 && !ss->pending(ss->arg, k->tag);

	/* The refused sessions' leases back, after the others learnt what
	 * the receiver took with them */
	if ((n = ss->refused(k->tag)) > 0 && cluster_redis_connected(&c->r)) {
		cluster_learn(c, k->key, n, ss->learn, now);
		cluster_trim(c, k, k->held > n ? k->held - n : 0, now);
	}
	cluster_regrant(c, k, ss, now);
	if (split) {
		(void)ss->yield(k->tag, -1);
		k->giving = k->give = 0;
		k->handover = 0;
	} else if (wanted > 0 && cluster_redis_connected(&c->r) &&
		   ((wanted == 1 && k->held - k->giving > 1) ||
		       (done && k->held > k->giving))) {
		/* Done with the destination: every idle session goes
		 * while a node waits; busy: the surplus over the share */
		if (cluster_fair(c, k, now) && done)
			cluster_yield(k, ss, -1, now);
	} else if (wanted == 0 || wanted == 2)
		k->give = 0;
	/* Only sessions no running delivery is about to take: one that
	 * started under a lease in an earlier step may not have taken its
	 * idle session yet, and would open another. */
	if (k->give > 0 && (n = ss->open(k->tag) - k->inuse) > 0)
		cluster_yield(k, ss, n < k->give ? n : k->give, now);
	n = ss->open(k->tag);
	want = n > k->inuse ? n : k->inuse;
	if (now >= k->handover) {
		k->giving = 0;
		cluster_trim(c, k, want, now);
	} else
		cluster_trim(c, k, want + k->giving, now);
}

/* cluster_tick - trim, renew, forget; when to be called again */
double
cluster_tick(struct cluster *c, double now, const struct cluster_sessions *ss)
{
	struct cluster_key **pp, *k;
	int renew, idle = 0, split, wanted = 0;
	double handover = 0, next; /* the first handover still to come */

	/* Back to Redis as soon as it answers, leases held or not. */
	if (c->r.mode == CLUSTER_FALLBACK)
		(void)cluster_redis_up(&c->r, now);
	/* Cut off: no session idles, as the leases that covered them
	 * will expire for the others (cluster.h) */
	split = c->r.mode == CLUSTER_FALLBACK;
	if (c->keys == NULL)
		return !cluster_redis_connected(&c->r) &&
			       c->r.mode == CLUSTER_FALLBACK
			   ? c->r.next_try
			   : 0;
	if (now >= c->next_share && cluster_redis_connected(&c->r)) {
		c->next_share = now + CLUSTER_SHARE_POLL;
		wanted = cluster_wanted(c, now);
	} else
		wanted = -1; /* not looked at: as it was */
	renew = cluster_redis_connected(&c->r) &&
		(now >= c->next_renew || c->r.reconnected);
	c->r.reconnected = 0;
	for (pp = &c->keys; (k = *pp) != NULL;) {
		cluster_tick_key(c, k, ss, split, wanted, now);
		if (k->giving > 0 && (handover == 0 || k->handover < handover))
			handover = k->handover;
		if (renew && k->held > 0)
			(void)cluster_members(c, k, k->ids, k->held, 1, now);
		if (k->held == 0 && k->inuse == 0) {
			*pp = k->next;
			free(k->key);
			free(k->tag);
			free(k->ids);
			free(k);
			continue;
		}
		idle |= k->held > 0;
		pp = &k->next;
	}
	if (renew)
		c->next_renew = now + (double)c->lease_ms / 3000;
	if (c->keys == NULL)
		return 0;
	if (!cluster_redis_connected(&c->r))
		return c->r.next_try;
	next = idle && c->next_share < c->next_renew ? c->next_share
						     : c->next_renew;
	return handover > 0 && handover < next ? handover : next;
}

/* cluster_state - shared or fallback, and since when */
enum cluster_mode
cluster_state(const struct cluster *c, double *since)
{
	*since = c != NULL ? c->r.since : 0;
	return c != NULL ? c->r.mode : CLUSTER_OFF;
}

/* cluster_share - this node's share of a limit while Redis is down */
int
cluster_share(const struct cluster *c, int limit)
{
	int n = cluster_nodes(c);

	return limit <= 0 ? limit : (limit + n - 1) / n;
}

/* cluster_nodes - the expected nodes */
int
cluster_nodes(const struct cluster *c)
{
	return c != NULL ? c->expected : 1;
}

/* cluster_close - every lease back, disconnect */
void
cluster_close(struct cluster *c)
{
	struct cluster_key *k;

	if (c == NULL)
		return;
	while ((k = c->keys) != NULL) {
		c->keys = k->next;
		if (cluster_redis_connected(&c->r) && k->held > 0)
			(void)cluster_members(c, k, k->ids, k->held, 0, 0);
		free(k->key);
		free(k->tag);
		free(k->ids);
		free(k);
	}
	cluster_redis_close(&c->r);
	free(c);
}
