/*
 * spool_tlsrpt.c - the TLS-RPT session records, $spool/state/tlsrpt/
 * (spool_tlsrpt.h).
 *
 * The crash rule of a day's reports, under the lock:
 *   R1. the records of the day are read, and its .sent list;
 *   R2. per domain not in .sent: its report is committed to the queue,
 *       then the domain is appended to .sent and fsync'd;
 *       crash between the two: that report is made again, with the
 *       same Report-ID (derived from the day and the domain), so a
 *       receiver sees the duplicate for what it is;
 *   R3. the records are unlinked, then .sent; crash in between: a
 *       .sent without records, removed by the next sweep.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "spool_digest.h"
#include "spool_path.h"
#include "spool_tlsrpt.h"

/* spool_tlsrpt_day - YYYY-MM-DD of t, UTC */
int
spool_tlsrpt_day(time_t t, char *day, size_t daylen)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(day, daylen, "%Y-%m-%d", &tm) != SPOOL_TLSRPT_DAY_LEN)
		return -1;
	return 0;
}

/* spool_tlsrpt_path - the path of file in state/tlsrpt/ (NULL: the
 * directory), the directory made when mk */
static int
spool_tlsrpt_path(char *buf, size_t len, const char *spool, const char *file,
    const char *suffix, int mk)
{
	char sub[PATH_MAX];
	int n;

	if (mk && (spool_path(buf, len, spool, SPOOL_STATE) == -1 ||
		      (mkdir(buf, SPOOL_DIR_MODE) == -1 && errno != EEXIST) ||
		      spool_path(buf, len, spool, SPOOL_TLSRPT_DIR) == -1 ||
		      (mkdir(buf, SPOOL_DIR_MODE) == -1 && errno != EEXIST)))
		return -1;
	n = snprintf(sub, sizeof(sub), "%s%s%s%s", SPOOL_TLSRPT_DIR,
	    file ? "/" : "", file ? file : "", suffix);
	if (n < 0 || (size_t)n >= sizeof(sub)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return spool_path(buf, len, spool, sub);
}

/* spool_tlsrpt_append - one write of text to the file, O_APPEND */
static int
spool_tlsrpt_append(const char *path, const char *text, int sync)
{
	int fd, e;

	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		 SPOOL_FILE_MODE)) == -1)
		return -1;
	if (io_write_all(fd, text, strlen(text)) == -1) {
		e = errno;
		(void)close(fd);
		errno = e;
		return -1;
	}
	return sync ? io_fsync_close(fd) : close(fd);
}

/* spool_tlsrpt_note - one session's record, on the day of now */
int
spool_tlsrpt_note(const char *spool, time_t now, const char *line)
{
	char day[SPOOL_TLSRPT_DAY_LEN + 1], path[PATH_MAX];

	if (spool_tlsrpt_day(now, day, sizeof(day)) == -1 ||
	    spool_tlsrpt_path(path, sizeof(path), spool, day, "", 0) == -1)
		return -1;
	if (spool_tlsrpt_append(path, line, 0) == 0)
		return 0;
	if (errno != ENOENT ||
	    spool_tlsrpt_path(path, sizeof(path), spool, day, "", 1) == -1)
		return -1;
	return spool_tlsrpt_append(path, line, 0); /* state/tlsrpt/ made */
}

/* spool_tlsrpt_lock - flock of state/tlsrpt/lock, not waited for */
int
spool_tlsrpt_lock(const char *spool, int *fd)
{
	char path[PATH_MAX];

	if (spool_tlsrpt_path(path, sizeof(path), spool, "lock", "", 1) == -1 ||
	    (*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, SPOOL_FILE_MODE)) ==
		-1)
		return -1;
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 1;
	(void)close(*fd);
	*fd = -1;
	return errno == EWOULDBLOCK ? 0 : -1;
}

/* spool_tlsrpt_is_day - name is YYYY-MM-DD, optionally with suffix */
static int
spool_tlsrpt_is_day(const char *name, const char *suffix)
{
	int i;

	for (i = 0; i < SPOOL_TLSRPT_DAY_LEN; i++)
		if (i == 4 || i == 7 ? name[i] != '-'
				     : name[i] < '0' || name[i] > '9')
			return 0;
	return strcmp(name + SPOOL_TLSRPT_DAY_LEN, suffix) == 0;
}

/* spool_tlsrpt_cmp - qsort: days in order */
static int
spool_tlsrpt_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* spool_tlsrpt_days - the past days with records (a .sent alone counts:
 * step R3 was cut short) */
int
spool_tlsrpt_days(const char *spool, const char *today,
    char (*days)[SPOOL_TLSRPT_DAY_LEN + 1], int max)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = 0, i, dup;

	if (spool_tlsrpt_path(dir, sizeof(dir), spool, NULL, "", 0) == -1)
		return -1;
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (n < max && (de = readdir(d)) != NULL) {
		if (!spool_tlsrpt_is_day(de->d_name, "") &&
		    !spool_tlsrpt_is_day(de->d_name, ".sent"))
			continue;
		if (strncmp(de->d_name, today, SPOOL_TLSRPT_DAY_LEN) >= 0)
			continue;
		for (i = dup = 0; i < n; i++)
			dup |= strncmp(days[i], de->d_name,
				   SPOOL_TLSRPT_DAY_LEN) == 0;
		if (dup)
			continue;
		memcpy(days[n], de->d_name, SPOOL_TLSRPT_DAY_LEN);
		days[n++][SPOOL_TLSRPT_DAY_LEN] = '\0';
	}
	(void)closedir(d);
	qsort(days, (size_t)n, sizeof(*days), spool_tlsrpt_cmp);
	return n;
}

/* spool_tlsrpt_load - a day's records or its .sent list */
int
spool_tlsrpt_load(
    const char *spool, const char *day, int sent, char **text, size_t *len)
{
	char path[PATH_MAX];

	if (spool_tlsrpt_path(
		path, sizeof(path), spool, day, sent ? ".sent" : "", 0) == -1)
		return -1;
	if (spool_digest_slurp(path, text, len) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	*len = 0;
	return (*text = strdup("")) != NULL ? 0 : -1;
}

/* spool_tlsrpt_sent - domain appended to the day's .sent, fsync'd */
int
spool_tlsrpt_sent(const char *spool, const char *day, const char *domain)
{
	char path[PATH_MAX], line[300];
	int n;

	n = snprintf(line, sizeof(line), "%s\n", domain);
	if (n < 0 || (size_t)n >= sizeof(line) ||
	    spool_tlsrpt_path(path, sizeof(path), spool, day, ".sent", 1) == -1)
		return -1;
	return spool_tlsrpt_append(path, line, 1);
}

/* spool_tlsrpt_done - R3: the records, then the .sent list */
int
spool_tlsrpt_done(const char *spool, const char *day)
{
	char path[PATH_MAX];

	if (spool_tlsrpt_path(path, sizeof(path), spool, day, "", 0) == -1 ||
	    (unlink(path) == -1 && errno != ENOENT) ||
	    spool_tlsrpt_path(path, sizeof(path), spool, day, ".sent", 0) ==
		-1 ||
	    (unlink(path) == -1 && errno != ENOENT))
		return -1;
	return 0;
}
