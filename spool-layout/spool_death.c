/*
 * spool_death.c - $spool/state/runners: one fixed-width text line per
 * runner slot, "pid how signal time", written by mj_queueserv when it
 * reaps a runner, read by the runner that takes a dead runner's message
 * over.  A runner's line is number pid % SPOOL_DEATH_SLOTS, so a line is
 * found without a search and the file never grows; a line of another
 * pid (overwritten by a later runner with the same slot) is "unknown",
 * as is a death the server never saw (it died too, a host reboot).
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
#include <unistd.h>

#include "spool_death.h"
#include "spool_path.h"

static const char *const spool_death_words[SPOOL_DEATH_NHOW] = {
    "exit", "fault", "hang", "stop", "killed"};

/* spool_death_word - the word for how in the file and in logs */
const char *
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
	return open(path, (create ? O_RDWR | O_CREAT : O_RDWR) | O_CLOEXEC |
			      O_NOFOLLOW,
	    SPOOL_FILE_MODE);
}

/* spool_death_put - write a line at pid's slot */
static int
spool_death_put(int fd, pid_t pid, const char *line)
{
	off_t off = (off_t)(pid % SPOOL_DEATH_SLOTS) * SPOOL_DEATH_LINE;

	return pwrite(fd, line, SPOOL_DEATH_LINE, off) == SPOOL_DEATH_LINE
		   ? 0
		   : -1;
}

/* spool_death_record - how a runner ended, at its line (no fsync: a
 * power loss ends every runner, and the next ones find no line, which
 * counts as unknown, the truth then) */
int
spool_death_record(const char *spool, const struct spool_death *d)
{
	char line[SPOOL_DEATH_LINE + 1];
	int fd, n, e;

	n = snprintf(line, sizeof(line), "%10ld %-6s %4d %20lld",
	    (long)d->pid, spool_death_word(d->how), d->sig,
	    (long long)d->when);
	if (n < 0 || n >= SPOOL_DEATH_LINE)
		return -1;
	memset(line + n, ' ', (size_t)(SPOOL_DEATH_LINE - 1 - n));
	line[SPOOL_DEATH_LINE - 1] = '\n';
	if ((fd = spool_death_open(spool, 1)) == -1)
		return -1;
	if (spool_death_put(fd, d->pid, line) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* spool_death_lookup - pid's line: 1 found, 0 none (or another pid's,
 * or damaged), -1 when the file cannot be read */
int
spool_death_lookup(const char *spool, pid_t pid, struct spool_death *d)
{
	char line[SPOOL_DEATH_LINE + 1], word[8];
	long p, sig;
	long long when;
	ssize_t r;
	int fd, i;

	memset(d, 0, sizeof(*d));
	if (pid <= 0)
		return 0;
	if ((fd = spool_death_open(spool, 0)) == -1)
		return errno == ENOENT ? 0 : -1;
	r = pread(fd, line, SPOOL_DEATH_LINE,
	    (off_t)(pid % SPOOL_DEATH_SLOTS) * SPOOL_DEATH_LINE);
	close(fd);
	if (r != SPOOL_DEATH_LINE)
		return r == -1 ? -1 : 0;
	line[SPOOL_DEATH_LINE] = '\0';
	if (sscanf(line, "%ld %7s %ld %lld", &p, word, &sig, &when) != 4 ||
	    p != (long)pid)
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
	return 1;
}

/* spool_death_forget - a new runner blanks a line an earlier process
 * with its pid left, so its own death is never read as that one */
int
spool_death_forget(const char *spool, pid_t pid)
{
	struct spool_death d;
	char line[SPOOL_DEATH_LINE];
	int fd, r;

	if (spool_death_lookup(spool, pid, &d) != 1)
		return 0;
	memset(line, ' ', sizeof(line));
	line[SPOOL_DEATH_LINE - 1] = '\n';
	if ((fd = spool_death_open(spool, 0)) == -1)
		return -1;
	r = spool_death_put(fd, pid, line);
	if (close(fd) == -1)
		r = -1;
	return r;
}
