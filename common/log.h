/*
 * log.h - one line per event, to syslog or (in the foreground, or where
 * no syslog daemon listens) to stderr.
 *
 * The _errno variants append ": strerror(errno)" with errno as it was on
 * entry; every function preserves errno for its caller.  log_last keeps
 * the calling thread's last warning or error, for the state of a
 * message whose processing failed.
 */
#ifndef MJQ_LOG_H
#define MJQ_LOG_H

#include <stdarg.h>

enum log_dest {
	LOG_TO_STDERR,
	LOG_TO_SYSLOG,
	LOG_TO_NONE, /* every line dropped (fuzz targets) */
};

int log_syslog_reachable(void);
enum log_dest log_open(const char *ident, enum log_dest dest);
void log_set_debug(int on);
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *log_last(void);
void log_last_clear(void);

#endif
