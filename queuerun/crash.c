/*
 * crash.c - weigh the death of the runner that held a message.
 *
 * A runner that finds a message marked active by another process knows
 * that process died holding it.  The death counts against the message
 * ([queuerun] max_crashes, then BAD/) only when the message is plausibly
 * its cause:
 *
 *   - the runner died of a fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 *     SIGABRT, SIGSYS, SIGTRAP) or was killed by the hang watchdog,
 *     as mj_queueserv recorded it in state/runners (spool_death.c),
 *     unless its main thread was expanding another message then (the
 *     runner names it in its line while it does): that one is the
 *     cause, not the others it held;
 *   - or the death was of any other kind (a SIGKILL from outside, the
 *     OOM killer, a kill past shutdown_timeout, a reboot the server did
 *     not see, an exit with an error status) and the message has made
 *     no progress, no recipient settled, since its previous counted
 *     death.  A runner that exited with status 0 meant to: that never
 *     counts, whatever it left marked.  With no counted death
 *     before, such a death is the machine's bad day, not the message's.
 *
 * So a kill -9 storm or a string of reloads never quarantines a post,
 * while a message that crashes every runner reaches BAD/ after
 * max_crashes faults, and one that keeps dying without progress after
 * one fault does too.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crash.h"
#include "log.h"
#include "qr_runner.h"
#include "spool_death.h"

/* crash_mark - the message the main thread is expanding now ("" when
 * none), in this runner's line of state/runners: a fault then is that
 * message's */
void
crash_mark(const struct queuerun *q, const char *name)
{
	if (spool_death_busy(q->s->spool_dir, getpid(), name) == -1)
		log_warn(
		    "cannot write this runner's line in %s", SPOOL_DEATH_FILE);
}

/* crash_weigh - 1 when the death of holder counts against the message
 * name (counted: its crashes so far; progressed: recipients settled
 * since the last counted one); how says what the runner died of */
int
crash_weigh(const struct queuerun *q, const char *name, pid_t holder,
    int counted, int progressed, char *how, size_t howlen)
{
	struct spool_death d;
	int count;

	/* 1: a state file from before holders were named */
	if (holder <= 1 ||
	    spool_death_lookup(q->s->spool_dir, holder, &d) != 1) {
		snprintf(how, howlen, "died, how unknown");
		d.how = SPOOL_DEATH_NHOW;
	} else if (d.how == SPOOL_DEATH_FAULT || d.how == SPOOL_DEATH_KILLED)
		snprintf(how, howlen, "died of signal %d (%s)", d.sig,
		    strsignal(d.sig));
	else if (d.how == SPOOL_DEATH_HANG)
		snprintf(how, howlen, "hung and was killed by the watchdog");
	else if (d.how == SPOOL_DEATH_STOP)
		snprintf(how, howlen, "was killed past shutdown_timeout");
	else
		snprintf(how, howlen, "exited with status %d", d.sig);
	if ((d.how == SPOOL_DEATH_FAULT || d.how == SPOOL_DEATH_HANG) &&
	    d.msg[0] != '\0' && strcmp(d.msg, name) != 0) {
		/* It was expanding another message then: that one's. */
		log_info("%s: its runner %ld %s while expanding %s: not "
			 "counted against this one",
		    name, (long)holder, how, d.msg);
		return 0;
	}
	if (d.how == SPOOL_DEATH_FAULT || d.how == SPOOL_DEATH_HANG)
		count = 1;
	else if (d.how == SPOOL_DEATH_EXIT && d.sig == 0)
		count = 0; /* it meant to exit: never the message's doing */
	else
		count = counted > 0 && !progressed;
	log_info("%s: its runner %ld %s: %s", name, (long)holder, how,
	    count ? "counted against it"
	    : d.how == SPOOL_DEATH_EXIT && d.sig == 0
		? "not counted, a clean exit"
		: (counted > 0 ? "not counted, it made progress since"
			       : "not counted, not a fault"));
	return count;
}
