/*
 * spool_tlsrpt.h - the TLS-RPT (RFC 8460) session records of the
 * runners, $spool/state/tlsrpt/ (spool-layout/README, "TLS reports").
 *
 * One file per UTC day, <YYYY-MM-DD>, one line per TLS session a
 * delivery thread of any runner opened that day, or per policy failure
 * outside a session: its fields, tab separated, are the policy domain,
 * the policy type ("sts", "tlsa", "no-policy-found"), the policy
 * string (its lines joined by '|'), the result ("success" or an RFC
 * 8460 4.3 result type), the receiving MX host, the receiving IP, the
 * sending IP and the failure reason, empty where not known (older
 * lines have no reason).  A line is appended with
 * one write(2) to a file opened O_APPEND, so runners need no lock to
 * add one and a crash loses none already written.  The day's report is
 * made once the day is over, under the flock of "lock" (one runner at a
 * time), the domains whose report is in the queue listed in
 * <day>.sent; then the day's files go.
 */
#ifndef MJQ_SPOOL_TLSRPT_H
#define MJQ_SPOOL_TLSRPT_H

#include <stddef.h>
#include <time.h>

#define SPOOL_TLSRPT_DIR "state/tlsrpt"
#define SPOOL_TLSRPT_DAY_LEN 10	   /* YYYY-MM-DD */
#define SPOOL_TLSRPT_LINE_MAX 2048 /* a longer record is cut short */
#define SPOOL_TLSRPT_DAYS_MAX 32   /* past days handled in one sweep */

/* spool_tlsrpt_day - the UTC day of t as YYYY-MM-DD; -1 on error */
int spool_tlsrpt_day(time_t t, char *day, size_t daylen);
/* spool_tlsrpt_note - append one record (a line, newline included) to
 * the file of the day of now; 0 or -1 with errno */
int spool_tlsrpt_note(const char *spool, time_t now, const char *line);
/* spool_tlsrpt_lock - the reporter's lock, not waited for: 1 held (*fd
 * to close), 0 another runner holds it, -1 error */
int spool_tlsrpt_lock(const char *spool, int *fd);
/* spool_tlsrpt_days - the days before today with records, oldest
 * first, at most max; their number, or -1 */
int spool_tlsrpt_days(const char *spool, const char *today,
    char (*days)[SPOOL_TLSRPT_DAY_LEN + 1], int max);
/* spool_tlsrpt_load - the records of day, or (sent) its list of
 * domains reported (malloc'd, NUL-ended; "" when there is none) */
int spool_tlsrpt_load(
    const char *spool, const char *day, int sent, char **text, size_t *len);
/* spool_tlsrpt_sent - domain's report of day is in the queue: one
 * line appended to <day>.sent, fsync'd; 0 or -1 */
int spool_tlsrpt_sent(const char *spool, const char *day, const char *domain);
/* spool_tlsrpt_done - day reported: its records go, then its .sent */
int spool_tlsrpt_done(const char *spool, const char *day);

#endif
