/*
 * queueserv_pool.c - the runner pool: one state machine per slot, and
 * the policy that turns "a walk is wanted" into work for a runner.
 *
 * Every change of a slot goes through queueserv_pool_event(), which looks
 * up (state, event) in pool_table: the next state and the one action that
 * moves the slot there (s6-supervise style).  A pair missing from the
 * table is an event that means nothing in that state (a late echo, a beat
 * from a runner already told to go) and is dropped.
 *
 * The policy (queueserv_pool_tick), on want_run: handshake one idle
 * runner (Majordomo: a line with the time, echoed back within
 * handshake_timeout_ms) and tell it to run; else spawn into a free slot
 * (a new runner always walks); else send every busy runner one coalesced
 * "rescan".  want_run stays up while no runner can take it, so a pool
 * whose runners all died picks the work up as soon as a slot may spawn.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "queueserv.h"
#include "spool_death.h"

typedef void pool_action_fn(struct qs *qs, struct slot *sl, long long now);

struct transition {
	int valid;
	enum slot_state next;
	pool_action_fn *action;
};

static pool_action_fn act_none, act_spawn, act_shake, act_run, act_rescan,
    act_shake_timeout, act_hang, act_stop, act_eof, act_kill, act_exit;

#define T(n, a)                                                                \
	{                                                                      \
		1, n, a                                                        \
	}
#define LIVE_STATES(ev, n, a)                                                  \
	[SLOT_STARTING][ev] = T(n, a), [SLOT_IDLE][ev] = T(n, a),              \
	[SLOT_SHAKING][ev] = T(n, a), [SLOT_BUSY][ev] = T(n, a)

static const struct transition pool_table[SLOT_NSTATES][EV_NEVENTS] = {
    [SLOT_EMPTY][EV_NEED] = T(SLOT_STARTING, act_spawn),
    [SLOT_IDLE][EV_NEED] = T(SLOT_SHAKING, act_shake),
    [SLOT_BUSY][EV_NEED] = T(SLOT_BUSY, act_rescan),

    [SLOT_STARTING][EV_HELLO] = T(SLOT_BUSY, act_none),
    [SLOT_SHAKING][EV_ECHO] = T(SLOT_BUSY, act_run),
    [SLOT_SHAKING][EV_BUSYREPLY] = T(SLOT_BUSY, act_none),
    [SLOT_SHAKING][EV_SHAKE_TIMEOUT] = T(SLOT_BUSY, act_shake_timeout),

    /* A beat reports the runner's own view; while a handshake is out,
     * its answer is what counts. */
    [SLOT_STARTING][EV_IDLEBEAT] = T(SLOT_IDLE, act_none),
    [SLOT_IDLE][EV_IDLEBEAT] = T(SLOT_IDLE, act_none),
    [SLOT_BUSY][EV_IDLEBEAT] = T(SLOT_IDLE, act_none),
    [SLOT_SHAKING][EV_IDLEBEAT] = T(SLOT_SHAKING, act_none),
    [SLOT_STARTING][EV_BUSYBEAT] = T(SLOT_BUSY, act_none),
    [SLOT_IDLE][EV_BUSYBEAT] = T(SLOT_BUSY, act_none),
    [SLOT_BUSY][EV_BUSYBEAT] = T(SLOT_BUSY, act_none),
    [SLOT_SHAKING][EV_BUSYBEAT] = T(SLOT_SHAKING, act_none),

    LIVE_STATES(EV_HANG, SLOT_STOPPING, act_hang),
    LIVE_STATES(EV_STOP, SLOT_STOPPING, act_stop),
    LIVE_STATES(EV_EOF, SLOT_STOPPING, act_eof),
    [SLOT_STOPPING][EV_EOF] = T(SLOT_STOPPING, act_eof),
    [SLOT_STOPPING][EV_KILL_TIMEOUT] = T(SLOT_STOPPING, act_kill),
    [SLOT_BACKOFF][EV_STOP] = T(SLOT_EMPTY, act_none),

    LIVE_STATES(EV_EXIT, SLOT_BACKOFF, act_exit),
    [SLOT_STOPPING][EV_EXIT] = T(SLOT_BACKOFF, act_exit),
    [SLOT_BACKOFF][EV_BACKOFF_DONE] = T(SLOT_EMPTY, act_none),
};

static const char *const pool_state_names[SLOT_NSTATES] = {
    "empty", "backoff", "starting", "idle", "handshake", "busy", "stopping"};

/* queueserv_pool_state_name - a state as status shows it */
const char *
queueserv_pool_state_name(enum slot_state st)
{
	return st < SLOT_NSTATES ? pool_state_names[st] : "?";
}

/* act_none - the state change is all there is */
static void
act_none(struct qs *qs, struct slot *sl, long long now)
{
	(void)qs, (void)now;
	sl->deadline = 0;
}

/* act_spawn - start a runner in this slot; a failure backs off */
static void
act_spawn(struct qs *qs, struct slot *sl, long long now)
{
	if (queueserv_runner_spawn(qs, sl) == -1) {
		sl->state = SLOT_BACKOFF;
		sl->spawned = now;
		sl->deaths++;
		sl->deadline = queueserv_runner_backoff(sl, now);
	}
}

/* act_shake - the Majordomo handshake: a line with the current time */
static void
act_shake(struct qs *qs, struct slot *sl, long long now)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	snprintf(sl->shake, sizeof(sl->shake), "time %lld.%06ld",
	    (long long)tv.tv_sec, (long)tv.tv_usec);
	queueserv_runner_send(sl, sl->shake);
	sl->deadline = now + qs->s.queueserv_handshake_timeout_ms;
}

/* act_run - the echo came back: this runner walks the spool now */
static void
act_run(struct qs *qs, struct slot *sl, long long now)
{
	(void)now;
	queueserv_runner_send(sl, "run");
	sl->rescan_sent = 1;
	sl->deadline = 0;
	qs->want_run = 0;
	log_debug("runner %ld (slot %d) runs", (long)sl->pid, sl->index);
}

/* act_rescan - a busy runner walks again when it can; one at a time */
static void
act_rescan(struct qs *qs, struct slot *sl, long long now)
{
	(void)qs, (void)now;
	if (sl->rescan_sent)
		return;
	queueserv_runner_send(sl, "rescan");
	sl->rescan_sent = 1;
}

/* act_shake_timeout - no echo in time: count it as busy */
static void
act_shake_timeout(struct qs *qs, struct slot *sl, long long now)
{
	(void)qs, (void)now;
	log_debug("runner %ld (slot %d) did not answer the handshake",
	    (long)sl->pid, sl->index);
	sl->deadline = 0;
}

/* act_hang - silent too long: SIGTERM now, SIGKILL at the deadline */
static void
act_hang(struct qs *qs, struct slot *sl, long long now)
{
	log_warnx("runner %ld (slot %d) silent for %llds: terminating",
	    (long)sl->pid, sl->index, (now - sl->heard) / 1000);
	sl->hang_stop = 1;
	queueserv_runner_signal(sl, SIGTERM);
	sl->deadline = now + qs->s.queueserv_runner_kill_timeout * 1000;
}

/* act_stop - drain and exit, within shutdown_timeout */
static void
act_stop(struct qs *qs, struct slot *sl, long long now)
{
	queueserv_runner_signal(sl, SIGTERM);
	sl->deadline = now + qs->s.queueserv_shutdown_timeout * 1000;
}

/* act_eof - its end closed: it is exiting; make sure it does */
static void
act_eof(struct qs *qs, struct slot *sl, long long now)
{
	queueserv_runner_close(sl);
	if (sl->deadline == 0)
		sl->deadline = now + qs->s.queueserv_runner_kill_timeout * 1000;
}

/* act_kill - it outlived its deadline */
static void
act_kill(struct qs *qs, struct slot *sl, long long now)
{
	(void)qs, (void)now;
	log_warnx("runner %ld (slot %d) did not exit: killing", (long)sl->pid,
	    sl->index);
	queueserv_runner_signal(sl, SIGKILL);
	sl->sent_kill = 1;
	sl->deadline = 0;
}

/* pool_death_how - how a runner ended, as the runner that takes its
 * messages over weighs it: a fault or the watchdog's kill may be the
 * message's doing; our kill past shutdown_timeout and a kill from
 * outside (an administrator, the OOM killer, a reboot) are not by
 * themselves */
static enum spool_death_how
pool_death_how(const struct slot *sl, int st)
{
	if (!WIFSIGNALED(st))
		return SPOOL_DEATH_EXIT;
	switch (WTERMSIG(st)) {
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGABRT:
	case SIGSYS:
	case SIGTRAP:
		return SPOOL_DEATH_FAULT;
	case SIGKILL:
		if (sl->sent_kill)
			return sl->hang_stop ? SPOOL_DEATH_HANG
					     : SPOOL_DEATH_STOP;
		return SPOOL_DEATH_KILLED;
	default:
		return SPOOL_DEATH_KILLED;
	}
}

/* pool_death_record - tell the runners how this one ended (state/) */
static void
pool_death_record(struct qs *qs, const struct slot *sl, int st)
{
	struct spool_death d;

	d.pid = sl->pid;
	d.how = pool_death_how(sl, st);
	d.sig = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st);
	d.when = time(NULL);
	if (spool_death_record(qs->s.spool_dir, &d) == -1)
		log_warn("runner %ld (slot %d): cannot record how it ended",
		    (long)sl->pid, sl->index);
}

/* act_exit - reaped: log how, throttle the slot, and have the work
 * taken over unless the runner left because it had none */
static void
act_exit(struct qs *qs, struct slot *sl, long long now)
{
	int st = sl->wait_status, clean;

	queueserv_runner_close(sl);
	pool_death_record(qs, sl, st);
	clean = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (WIFSIGNALED(st))
		log_warnx("runner %ld (slot %d) killed by signal %d (%s)",
		    (long)sl->pid, sl->index, WTERMSIG(st),
		    strsignal(WTERMSIG(st)));
	else if (!clean)
		log_warnx("runner %ld (slot %d) exited with status %d",
		    (long)sl->pid, sl->index, WEXITSTATUS(st));
	else
		log_debug(
		    "runner %ld (slot %d) exited", (long)sl->pid, sl->index);
	if (!clean)
		qs->runner_deaths++; /* status -p: runner restarts */
	if (!clean && now - sl->spawned < QS_RESTART_WINDOW)
		sl->deaths++;
	else
		sl->deaths = 0;
	sl->deadline = queueserv_runner_backoff(sl, now);
	if (sl->deaths >= 3)
		log_errx("runner slot %d: %d quick deaths in a row; next "
			 "start in %llds",
		    sl->index, sl->deaths, (sl->deadline - now + 999) / 1000);
	if (!sl->said_idle_bye && !qs->stopping)
		qs->want_run = 1;
	sl->pid = 0;
	sl->inhand = 0;
}

/* queueserv_pool_event - one transition of one slot */
static void
queueserv_pool_event(struct qs *qs, struct slot *sl, enum slot_event ev)
{
	const struct transition *t = &pool_table[sl->state][ev];
	enum slot_state from = sl->state;

	if (!t->valid)
		return;
	sl->state = t->next;
	t->action(qs, sl, clock_ms());
	if (from != sl->state)
		log_debug("slot %d: %s -> %s", sl->index,
		    pool_state_names[from], pool_state_names[sl->state]);
}

/* queueserv_pool_exited - the slot's runner was reaped: read what it
 * said last (its "bye"), then the exit */
void
queueserv_pool_exited(struct qs *qs, struct slot *sl)
{
	queueserv_pool_input(qs, sl);
	queueserv_pool_event(qs, sl, EV_EXIT);
}

/* queueserv_pool_resize - room for max_runners slots (reload may grow) */
int
queueserv_pool_resize(struct qs *qs)
{
	size_t want = (size_t)qs->s.queueserv_max_runners, i;
	struct slot *n;

	if (want <= qs->nslots)
		return 0;
	if ((n = reallocarray(qs->slots, want, sizeof(*n))) == NULL)
		return -1;
	for (i = qs->nslots; i < want; i++) {
		memset(&n[i], 0, sizeof(n[i]));
		n[i].index = (int)i;
		n[i].fd = -1;
		n[i].state = SLOT_EMPTY;
	}
	qs->slots = n;
	qs->nslots = want;
	return 0;
}

/* pool_has_process - the slot's state implies a process */
static int
pool_has_process(const struct slot *sl)
{
	return sl->state >= SLOT_STARTING;
}

/* queueserv_pool_live - how many slots have a process */
int
queueserv_pool_live(const struct qs *qs)
{
	size_t i;
	int n = 0;

	for (i = 0; i < qs->nslots; i++)
		n += pool_has_process(&qs->slots[i]);
	return n;
}

/* pool_timers - deadlines and silence, as events */
static void
pool_timers(struct qs *qs, long long now)
{
	long long hang = qs->s.queueserv_runner_hang_timeout * 1000;
	struct slot *sl;
	size_t i;

	for (i = 0; i < qs->nslots; i++) {
		sl = &qs->slots[i];
		if (sl->deadline != 0 && sl->deadline <= now) {
			if (sl->state == SLOT_SHAKING)
				queueserv_pool_event(qs, sl, EV_SHAKE_TIMEOUT);
			else if (sl->state == SLOT_STOPPING)
				queueserv_pool_event(qs, sl, EV_KILL_TIMEOUT);
			else if (sl->state == SLOT_BACKOFF)
				queueserv_pool_event(qs, sl, EV_BACKOFF_DONE);
		}
		if (pool_has_process(sl) && sl->state != SLOT_STOPPING &&
		    now - sl->heard >= hang)
			queueserv_pool_event(qs, sl, EV_HANG);
	}
}

/* pool_find - the first used slot in a state, or NULL */
static struct slot *
pool_find(struct qs *qs, enum slot_state st)
{
	size_t i, n = (size_t)qs->s.queueserv_max_runners;

	for (i = 0; i < n && i < qs->nslots; i++)
		if (qs->slots[i].state == st)
			return &qs->slots[i];
	return NULL;
}

/* pool_place_run - hand want_run to a runner, if one can take it */
static void
pool_place_run(struct qs *qs)
{
	struct slot *sl;
	size_t i;
	int live = 0;

	if (pool_find(qs, SLOT_SHAKING) != NULL)
		return; /* one handshake at a time; its answer decides */
	if ((sl = pool_find(qs, SLOT_IDLE)) != NULL) {
		queueserv_pool_event(qs, sl, EV_NEED);
		return;
	}
	if (pool_find(qs, SLOT_STARTING) != NULL) {
		qs->want_run = 0; /* its first walk is still to come */
		return;
	}
	if ((sl = pool_find(qs, SLOT_EMPTY)) != NULL) {
		queueserv_pool_event(qs, sl, EV_NEED);
		if (sl->state == SLOT_STARTING)
			qs->want_run = 0;
		return;
	}
	for (i = 0; i < qs->nslots; i++) {
		sl = &qs->slots[i];
		if (sl->state == SLOT_BUSY)
			queueserv_pool_event(qs, sl, EV_NEED);
		if (sl->state == SLOT_BUSY || sl->state == SLOT_STARTING)
			live = 1;
	}
	/* With nobody at work, keep the wish until a slot may spawn. */
	if (live)
		qs->want_run = 0;
}

/* queueserv_pool_rescan_all - every busy runner walks again (flush) */
void
queueserv_pool_rescan_all(struct qs *qs)
{
	size_t i;

	for (i = 0; i < qs->nslots; i++)
		if (qs->slots[i].state == SLOT_BUSY)
			queueserv_pool_event(qs, &qs->slots[i], EV_NEED);
	qs->want_run = 1;
}

/* queueserv_pool_tick - timers, stop and reload, min_runners, want_run */
void
queueserv_pool_tick(struct qs *qs, long long now)
{
	size_t i, min;

	pool_timers(qs, now);
	if (qs->stopping || qs->reloading) {
		for (i = 0; i < qs->nslots; i++)
			queueserv_pool_event(qs, &qs->slots[i], EV_STOP);
		if (qs->stopping)
			return;
		qs->reloading = 0;
		qs->want_run = 1;
	}
	min = (size_t)qs->s.queueserv_min_runners;
	if (min > (size_t)qs->s.queueserv_max_runners)
		min = (size_t)qs->s.queueserv_max_runners;
	for (i = 0; i < min && i < qs->nslots; i++)
		if (qs->slots[i].state == SLOT_EMPTY)
			queueserv_pool_event(qs, &qs->slots[i], EV_NEED);
	if (qs->want_run)
		pool_place_run(qs);
}

/* queueserv_pool_deadline - the earliest timer of the pool, or -1 */
long long
queueserv_pool_deadline(const struct qs *qs)
{
	long long hang = qs->s.queueserv_runner_hang_timeout * 1000, d = -1;
	const struct slot *sl;
	size_t i;

	for (i = 0; i < qs->nslots; i++) {
		sl = &qs->slots[i];
		if (sl->deadline != 0 && (d == -1 || sl->deadline < d))
			d = sl->deadline;
		if (pool_has_process(sl) && sl->state != SLOT_STOPPING &&
		    (d == -1 || sl->heard + hang < d))
			d = sl->heard + hang;
	}
	return d;
}

/* pool_line - one line from a runner */
static void
pool_line(struct qs *qs, struct slot *sl, char *line)
{
	char word[8];
	int inhand;
	long done;

	if (strncmp(line, "hello", 5) == 0) {
		queueserv_pool_event(qs, sl, EV_HELLO);
	} else if (sscanf(line, "beat %7s %d %ld", word, &inhand, &done) == 3) {
		sl->inhand = inhand;
		sl->done = done;
		sl->rescan_sent = 0;
		queueserv_pool_event(qs, sl,
		    strcmp(word, "idle") == 0 ? EV_IDLEBEAT : EV_BUSYBEAT);
	} else if (strncmp(line, "time ", 5) == 0) {
		if (sl->state == SLOT_SHAKING && strcmp(line, sl->shake) == 0)
			queueserv_pool_event(qs, sl, EV_ECHO);
	} else if (strncmp(line, "busy ", 5) == 0) {
		if (sl->state == SLOT_SHAKING &&
		    strcmp(line + 5, sl->shake) == 0)
			queueserv_pool_event(qs, sl, EV_BUSYREPLY);
	} else if (strcmp(line, "bye idle") == 0) {
		sl->said_idle_bye = 1;
	} else if (strncmp(line, "bye", 3) != 0) {
		log_warnx("runner %ld (slot %d): unknown line \"%.40s\"",
		    (long)sl->pid, sl->index, line);
	}
}

/* queueserv_pool_input - read what a runner said, line by line */
void
queueserv_pool_input(struct qs *qs, struct slot *sl)
{
	ssize_t n;
	char *nl, *p;

	while (sl->fd != -1) {
		n = read(
		    sl->fd, sl->in + sl->inlen, sizeof(sl->in) - 1 - sl->inlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			queueserv_pool_event(qs, sl, EV_EOF);
			return;
		}
		sl->heard = clock_ms();
		sl->inlen += (size_t)n;
		sl->in[sl->inlen] = '\0';
		p = sl->in;
		while ((nl = strchr(p, '\n')) != NULL) {
			*nl = '\0';
			pool_line(qs, sl, p);
			p = nl + 1;
		}
		sl->inlen -= (size_t)(p - sl->in);
		memmove(sl->in, p, sl->inlen);
		if (sl->inlen == sizeof(sl->in) - 1)
			sl->inlen = 0; /* no line is that long: drop it */
	}
}
