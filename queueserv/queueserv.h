/*
 * queueserv.h - mj_queueserv's parts and the state they share.
 *
 * One process, one poll loop (mj_queueserv.c).  The listener takes
 * clients on queueserv.sock (queueserv_listen.c); a poke only raises
 * want_run, so a flood of pokes costs no memory.  The pool
 * (queueserv_pool.c) turns want_run into a handshake with an idle runner,
 * a new runner, or a "rescan" to busy ones; the runner processes are
 * made and reaped in queueserv_runner.c.  Control verbs are in
 * queueserv_control.c, spool counts in queueserv_status.c, the lists'
 * bounce handling in queueserv_lists.c, the tmp/ sweeper in
 * queueserv_sweep.c.
 *
 * Calls run one way: mj_queueserv.c -> control, listen, pool, runner,
 * sweep; control -> listen, status; status -> pool, prom; pool ->
 * runner.  A lower file never calls back up: what it wants of the
 * server it returns (a control verb's enum qs_control_act, a reaped
 * child's pid and slot, a finished flush), and the loop carries it out.
 *
 * Times are milliseconds of CLOCK_MONOTONIC (clock_ms) unless the
 * name says otherwise.
 */
#ifndef MJQ_QUEUESERV_H
#define MJQ_QUEUESERV_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "clock.h"
#include "cluster.h"
#include "lists.h"
#include "settings.h"

#define QS_LINE_MAX 256		/* a request or runner line, with newline */
#define QS_RESTART_WINDOW 10000 /* a death sooner than this counts */
#define QS_BACKOFF_MAX 30000	/* the longest wait before a respawn */
#define QS_SPAWN_MIN 1000	/* at most one spawn per slot per second */
#define QS_HELPERS_MAX 4	/* status/flush children at a time */

/* Exit codes (documented in mj_queueserv.8). */
#define QS_EX_FAIL 1 /* already running; a control verb failed */

/* The states of a runner slot; queueserv_pool.c has the table. */
enum slot_state {
	SLOT_EMPTY,    /* no process; may spawn now */
	SLOT_BACKOFF,  /* no process; may not spawn before the deadline */
	SLOT_STARTING, /* spawned, no greeting yet */
	SLOT_IDLE,     /* its last word: nothing to do */
	SLOT_SHAKING,  /* handshake line sent, echo awaited */
	SLOT_BUSY,     /* working */
	SLOT_STOPPING, /* told to go (SIGTERM or EOF); exit awaited */
	SLOT_NSTATES
};

enum slot_event {
	EV_NEED,	  /* the pool wants this slot to do work */
	EV_HELLO,	  /* runner: hello */
	EV_ECHO,	  /* runner: our handshake line, echoed */
	EV_BUSYREPLY,	  /* runner: busy, to our handshake */
	EV_IDLEBEAT,	  /* runner: beat idle */
	EV_BUSYBEAT,	  /* runner: beat busy */
	EV_SHAKE_TIMEOUT, /* no echo within handshake_timeout_ms */
	EV_HANG,	  /* nothing heard for runner_hang_timeout */
	EV_STOP,	  /* stop or reload: drain and exit */
	EV_EOF,		  /* its end of the socketpair closed */
	EV_KILL_TIMEOUT,  /* still there after SIGTERM */
	EV_EXIT,	  /* reaped */
	EV_BACKOFF_DONE,  /* may spawn again */
	EV_NEVENTS
};

struct slot {
	int index;
	enum slot_state state;
	pid_t pid;
	int fd; /* our end of the socketpair, -1 when none */
	char in[QS_LINE_MAX];
	size_t inlen;
	long long spawned;   /* when the process started */
	long long heard;     /* when it last said anything */
	long long deadline;  /* SHAKING, STOPPING, BACKOFF: timer */
	char shake[64];	     /* the handshake line awaited */
	int rescan_sent;     /* a rescan is on its way, not yet answered */
	int said_idle_bye;   /* it announced an idle exit */
	int deaths;	     /* quick deaths in a row */
	int inhand;	     /* from its last beat */
	long done;	     /* from its last beat */
	int wait_status;     /* of the last exit */
	int hang_stop;	     /* the hang watchdog asked it to go */
	int sent_kill;	     /* we sent SIGKILL */
	time_t started_wall; /* for status */
};

struct client {
	int fd;
	long long deadline;
	size_t inlen, outlen, outoff;
	char in[QS_LINE_MAX];
	char out[64];
	int closing; /* reply queued; close when written */
};

struct qs {
	struct settings s;
	struct lists_settings ls;   /* the list sections: status checks DKIM */
	struct cluster_settings cs; /* [cluster]: status shows the node */
	char config[PATH_MAX];	    /* absolute, "" for the default file */
	char runner[PATH_MAX];	    /* the mj_queuerun program */
	char sock_path[PATH_MAX];
	int foreground, debug;
	int listen_fd;
	int sig_fd; /* read end of the self-pipe */
	struct client *clients;
	size_t nclients, maxclients;
	struct slot *slots;
	size_t nslots; /* allocated; max_runners of them are used */
	pid_t helpers[QS_HELPERS_MAX];
	int helper_flush[QS_HELPERS_MAX];
	int flush_done; /* a flush helper finished: run now */
	int want_run;	/* pokes, timer, deaths: a walk is wanted */
	int stopping;	/* SIGTERM/SIGINT or "stop" */
	int reloading;	/* SIGHUP or "reload" */
	long long stop_deadline;
	long long next_timer_run;
	long long next_sweep;
	pid_t pid; /* the server's, for status (run by a helper) */
	long long started;
	time_t started_wall;
	unsigned long long pokes;
	unsigned long long runner_deaths; /* runners that died, since start */
};

/* queueserv_listen.c */
int queueserv_listen_open(struct qs *qs, char *err, size_t errlen);
void queueserv_listen_close(struct qs *qs, int unlink_path);
int queueserv_listen_perms(struct qs *qs);
int queueserv_listen_accept(struct qs *qs);
/* queueserv_listen_read's results */
enum { QS_LISTEN_WAIT, QS_LISTEN_LINE, QS_LISTEN_GONE };
int queueserv_listen_read(struct qs *qs, struct client *c, short revents);
void queueserv_listen_write(struct qs *qs, struct client *c, short revents);
void queueserv_listen_reply(struct client *c, const char *text);
void queueserv_listen_drop(struct qs *qs, struct client *c);
void queueserv_listen_timeouts(struct qs *qs, long long now);
long long queueserv_listen_deadline(const struct qs *qs);

/* queueserv_control.c */
/* What a request asks of the server beyond its reply, done by the loop. */
enum qs_control_act {
	QS_ACT_NONE,
	QS_ACT_STOP,  /* stop: the reply is queued, the client held */
	QS_ACT_RELOAD /* reload, then queueserv_control_reloaded */
};
enum qs_control_act queueserv_control(
    struct qs *qs, struct client *c, const char *line);
void queueserv_control_reloaded(struct client *c, int r, const char *err);
int queueserv_control_client(const struct qs *qs, const char *request);
int queueserv_control_reaped(struct qs *qs, pid_t pid);

/* queueserv_status.c */
/* queueserv_status_write's formats: status, status -j, status -p */
enum { QS_STATUS_TEXT, QS_STATUS_JSON, QS_STATUS_PROM };
int queueserv_status_write(const struct qs *qs, int fd, int format);
int queueserv_status_offline(const struct qs *qs, int format);

/* queueserv_lists.c: mj_queueserv disabled [list@domain], one line per
 * address disabled after its bounces; a sysexits code */
int queueserv_lists_disabled(const struct settings *s, const char *only);

/* queueserv_pool.c */
const char *queueserv_pool_state_name(enum slot_state st);
int queueserv_pool_resize(struct qs *qs);
void queueserv_pool_tick(struct qs *qs, long long now);
long long queueserv_pool_deadline(const struct qs *qs);
void queueserv_pool_input(struct qs *qs, struct slot *sl);
void queueserv_pool_exited(struct qs *qs, struct slot *sl);
int queueserv_pool_live(const struct qs *qs);
void queueserv_pool_rescan_all(struct qs *qs);

/* queueserv_runner.c */
int queueserv_runner_find(struct qs *qs, char *err, size_t errlen);
int queueserv_runner_spawn(struct qs *qs, struct slot *sl);
void queueserv_runner_send(struct slot *sl, const char *line);
void queueserv_runner_signal(struct slot *sl, int sig);
void queueserv_runner_close(struct slot *sl);
pid_t queueserv_runner_reap(struct qs *qs, struct slot **slp);
long long queueserv_runner_backoff(struct slot *sl, long long now);

/* queueserv_sweep.c */
int queueserv_sweep(const struct qs *qs);

#endif
