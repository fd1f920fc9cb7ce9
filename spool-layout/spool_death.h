/*
 * spool_death.h - how each runner ended, as mj_queueserv saw it
 * ($spool/state/runners, spool-layout/README "Runner deaths").
 *
 * mj_queueserv writes one line per runner it reaps; a runner that takes
 * over a message whose state file names a dead holder reads that line
 * to decide whether the death counts against the message (a fault or
 * the hang watchdog's kill does; a kill from outside, a stop or a host
 * reboot does not by itself).  While alive, a runner keeps in its line
 * the message its main thread is expanding, which the server keeps when
 * it writes how the runner ended: a fault there is that message's, not
 * the others' the runner held.
 */
#ifndef MJQ_SPOOL_DEATH_H
#define MJQ_SPOOL_DEATH_H

#include <sys/types.h>
#include <time.h>

#include "spool_name.h"

#define SPOOL_DEATH_FILE "state/runners"
#define SPOOL_DEATH_SLOTS 1024 /* lines; a runner's is pid % SLOTS */
#define SPOOL_DEATH_LINE 256   /* bytes per line, newline included */

/* How a runner ended. */
enum spool_death_how {
	SPOOL_DEATH_EXIT,   /* exited (any status) */
	SPOOL_DEATH_FAULT,  /* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT... */
	SPOOL_DEATH_HANG,   /* killed by the hang watchdog */
	SPOOL_DEATH_STOP,   /* killed by the server past shutdown_timeout */
	SPOOL_DEATH_KILLED, /* any other signal: from outside */
	SPOOL_DEATH_BUSY,   /* alive (written by the runner itself) */
	SPOOL_DEATH_NHOW
};

struct spool_death {
	pid_t pid;
	enum spool_death_how how;
	int sig; /* the signal, or the exit status */
	time_t when;
	char msg[SPOOL_NAME_MAX + 1]; /* what its main thread was expanding */
};

int spool_death_record(const char *spool, const struct spool_death *d);
int spool_death_lookup(const char *spool, pid_t pid, struct spool_death *d);
int spool_death_busy(const char *spool, pid_t pid, const char *msg);

#endif
