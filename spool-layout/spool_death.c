/*
 * spool_death.c - $spool/state/runners: one fixed-width text line per
 * runner slot, "pid how signal time [message]", written by mj_queueserv
 * when it reaps a runner, read by the runner that takes a dead runner's message
 * over.  A runner's line is number pid % SPOOL_DEATH_SLOTS, so a line is
 * found without a search and the file never grows; a line of another
 * pid (overwritten by a later runner with the same slot) is "unknown",
 * as is a death the server never saw (it died too, a host reboot).
 *
 * A live runner keeps its own line as "pid busy 0 time <message>", the
 * message its main thread is expanding (the riskiest work it does with
 * one message's text), and blank after; the server keeps that message
 * in the line it writes when it reaps the runner.
 *
 * Runtime state, not mail: deleting the file loses only what it says
 * about deaths not yet weighed, which then count as unknown.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spool_death.h"
#include "spool_path.h"

static const char *const spool_death_words[SPOOL_DEATH_NHOW] = {
    "exit", "fault", "hang", "stop", "killed", "busy"};

/* spool_death_word - the word for how in the file and in logs */
static const char *
spool_death_word(enum spool_death_how how)
{
	return how < SPOOL_DEATH_NHOW ? spool_death_words[how] : "?";
}

/* spool_death_open - the file, made (with state/) when create is set */
static int
spool_death_open(const char *spool, int create)
{
	char dir[PATH_MAX], path[PATH_MAX];

	if (spool_path(dir, sizeof(dir), spool, SPOOL_STATE) == -1 ||
	    spool_path(path, sizeof(path), spool, SPOOL_DEATH_FILE) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (create && mkdir(dir, SPOOL_DIR_MODE) == -1 && errno != EEXIST)
		return -1;
	return open(path,
	    (create ? O_RDWR | O_CREAT : O_RDWR) | O_CLOEXEC | O_NOFOLLOW,
	    SPOOL_FILE_MODE);
}

/* spool_death_read - d from pid's line of fd: 1, or 0 when the line is
 * another pid's, blank or damaged */
static int
spool_death_read(int fd, pid_t pid, struct spool_death *d)
{
	char line[SPOOL_DEATH_LINE + 1], word[8];
	long p, sig;
	long long when;
	ssize_t r;
	int i, n = 0;

	memset(d, 0, sizeof(*d));
	r = pread(fd, line, SPOOL_DEATH_LINE,
	    (off_t)(pid % SPOOL_DEATH_SLOTS) * SPOOL_DEATH_LINE);
	if (r != SPOOL_DEATH_LINE)
		return 0;
	line[SPOOL_DEATH_LINE - 1] = '\0';
	if (sscanf(line, "%ld %7s %ld %lld %n", &p, word, &sig, &when, &n) !=
		4 ||
	    p != (long)pid || n == 0)
		return 0;
	for (i = 0; i < SPOOL_DEATH_NHOW; i++)
		if (strcmp(word, spool_death_words[i]) == 0)
			break;
	if (i == SPOOL_DEATH_NHOW)
		return 0;
	d->pid = pid;
	d->how = (enum spool_death_how)i;
	d->sig = (int)sig;
	d->when = (time_t)when;
	/* the rest of the line, without its padding */
	(void)strlcpy(d->msg, line + n, sizeof(d->msg)); /* cut: a bad line */
	d->msg[strcspn(d->msg, " ")] = '\0';
	return 1;
}

/* spool_death_write - d as pid's line (no fsync: a power loss ends every
 * runner, and the next ones find no line, which counts as unknown, the
 * truth then) */
static int
spool_death_write(int fd, const struct spool_death *d)
{
	char line[SPOOL_DEATH_LINE + 1];
	off_t off = (off_t)(d->pid % SPOOL_DEATH_SLOTS) * SPOOL_DEATH_LINE;
	int n;

	n = snprintf(line, sizeof(line), "%10ld %-6s %4d %20lld %s",
	    (long)d->pid, spool_death_word(d->how), d->sig, (long long)d->when,
	    d->msg);
	if (n < 0 || n >= SPOOL_DEATH_LINE) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memset(line + n, ' ', (size_t)(SPOOL_DEATH_LINE - 1 - n));
	line[SPOOL_DEATH_LINE - 1] = '\n';
	return pwrite(fd, line, SPOOL_DEATH_LINE, off) == SPOOL_DEATH_LINE ? 0
									   : -1;
}

/* spool_death_put - write d, keeping the message of the runner's own
 * busy line when keep is set; the file made if need be */
static int
spool_death_put(const char *spool, struct spool_death *d, int keep)
{
	struct spool_death was;
	int fd, e;

	if ((fd = spool_death_open(spool, 1)) == -1)
		return -1;
	if (keep && spool_death_read(fd, d->pid, &was) == 1 &&
	    was.how == SPOOL_DEATH_BUSY)
		(void)strlcpy(d->msg, was.msg, sizeof(d->msg)); /* same size */
	if (spool_death_write(fd, d) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* spool_death_record - how a runner ended, at its line, with the
 * message it last said it was expanding */
int
spool_death_record(const char *spool, const struct spool_death *d)
{
	struct spool_death copy = *d;

	copy.msg[0] = '\0';
	return spool_death_put(spool, &copy, 1);
}

/* spool_death_busy - a live runner's line: the message its main thread
 * is expanding now, or "" (written at start, so that a line an earlier
 * process with this pid left is never read as this runner's death) */
int
spool_death_busy(const char *spool, pid_t pid, const char *msg)
{
	struct spool_death d;

	memset(&d, 0, sizeof(d));
	d.pid = pid;
	d.how = SPOOL_DEATH_BUSY;
	d.when = time(NULL);
	if (strlcpy(d.msg, msg, sizeof(d.msg)) >= sizeof(d.msg)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return spool_death_put(spool, &d, 0);
}

/* spool_death_lookup - pid's line: 1 found, 0 none (or another pid's,
 * or damaged), -1 when the file cannot be read */
int
spool_death_lookup(const char *spool, pid_t pid, struct spool_death *d)
{
	int fd, r;

	memset(d, 0, sizeof(*d));
	if (pid <= 0)
		return 0;
	if ((fd = spool_death_open(spool, 0)) == -1)
		return errno == ENOENT ? 0 : -1;
	r = spool_death_read(fd, pid, d);
	close(fd);
	return r;
}
