/*
 * log.c - one line per event, to syslog or to stderr.
 *
 * Daemons log to syslog; in the foreground (and before daemonizing) they
 * log to stderr as "prog: message", so tests and operators see the same
 * text.  Where no syslog daemon listens (a container, a minimal system)
 * syslog(3) would drop every line, so a daemon logs to stderr instead:
 * the journal, or whatever the init script sends it to, keeps it.
 * Every entry point keeps errno, so a caller can log and then still
 * report the error it was handling.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <paths.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"

static enum log_dest log_dest = LOG_TO_STDERR;
static int log_debug_on;

/* log_syslog_reachable - 1 when a syslog daemon listens on _PATH_LOG
 * (a datagram socket, or a stream one as syslog(3) also tries) */
int
log_syslog_reachable(void)
{
	static const int types[] = {SOCK_DGRAM, SOCK_STREAM};
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int saved = errno, fd, ok = 0;
	size_t i;

	if (strlcpy(sun.sun_path, _PATH_LOG, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		return 0;
	for (i = 0; i < sizeof(types) / sizeof(types[0]) && !ok; i++) {
		if ((fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0)) == -1)
			continue;
		ok = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
		close(fd);
	}
	errno = saved;
	return ok;
}

/* log_open - choose the destination and the program name; syslog only
 * where a syslog daemon listens, else stderr.  The destination chosen. */
enum log_dest
log_open(const char *ident, enum log_dest dest)
{
	if (ident != NULL)
		setprogname(ident);
	if (dest == LOG_TO_SYSLOG && !log_syslog_reachable())
		dest = LOG_TO_STDERR;
	log_dest = dest;
	if (dest == LOG_TO_SYSLOG)
		openlog(getprogname(), LOG_PID | LOG_NDELAY, LOG_MAIL);
	return dest;
}

/* log_set_debug - turn debug lines on or off */
void
log_set_debug(int on)
{
	log_debug_on = on;
}

/* The last warning or error of this thread, for log_last. */
static _Thread_local char log_last_line[300];

/* log_last - the text of this thread's last warning or error since
 * log_last_clear ("" when none), for a caller that records why it failed
 * (a message's state) as well as logging it */
const char *
log_last(void)
{
	return log_last_line;
}

/* log_last_clear - forget the last warning or error */
void
log_last_clear(void)
{
	log_last_line[0] = '\0';
}

/* log_vemit - write one line at a priority, optionally with strerror */
static void
log_vemit(int prio, int with_errno, const char *fmt, va_list ap)
{
	int saved = errno;
	char line[2048];

	if (log_dest == LOG_TO_NONE)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	/* A reason cut short at the buffer's end is still the reason. */
	if (prio <= LOG_WARNING &&
	    strlcpy(log_last_line, line, sizeof(log_last_line)) <
		sizeof(log_last_line) &&
	    with_errno &&
	    strlcat(log_last_line, ": ", sizeof(log_last_line)) <
		sizeof(log_last_line))
		(void)strlcat(
		    log_last_line, strerror(saved), sizeof(log_last_line));
	if (log_dest == LOG_TO_SYSLOG) {
		if (with_errno)
			syslog(prio, "%s: %s", line, strerror(saved));
		else
			syslog(prio, "%s", line);
	} else {
		if (with_errno)
			fprintf(stderr, "%s: %s: %s\n", getprogname(), line,
			    strerror(saved));
		else
			fprintf(stderr, "%s: %s\n", getprogname(), line);
	}
	errno = saved;
}

#define LOG_FN(name, prio, with_errno)                                         \
	void name(const char *fmt, ...)                                        \
	{                                                                      \
		va_list ap;                                                    \
		va_start(ap, fmt);                                             \
		log_vemit(prio, with_errno, fmt, ap);                          \
		va_end(ap);                                                    \
	}

/* log_info, log_notice, log_warn[x], log_err[x] - one line each */
LOG_FN(log_info, LOG_INFO, 0)
LOG_FN(log_notice, LOG_NOTICE, 0)
LOG_FN(log_warn, LOG_WARNING, 1)
LOG_FN(log_warnx, LOG_WARNING, 0)
LOG_FN(log_err, LOG_ERR, 1)
LOG_FN(log_errx, LOG_ERR, 0)

/* log_debug - a line only when debugging is on */
void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_debug_on)
		return;
	va_start(ap, fmt);
	log_vemit(LOG_DEBUG, 0, fmt, ap);
	va_end(ap);
}
