/*
 * queueserv_runner.c - runner processes: find the program, spawn one
 * with its socketpair, talk, signal, reap, and throttle restarts.
 *
 * A runner gets its end of the socketpair as fd 3 and nothing else of
 * ours: every other descriptor is closed before exec.  Restarts are
 * throttled like runit/s6: one spawn per slot per second at most, and a
 * slot whose runner keeps dying waits 1, 2, 4 ... up to 30 seconds, so a
 * broken runner never makes a busy loop and the pool never stays dead.
 * The pool calls these; they call nothing of the server's, and a child
 * reaped here goes to its owner (the pool, or control for a helper)
 * through the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "selfpath.h"
#include "queueserv.h"

#define RUNNER_FD 3

/* queueserv_runner_find - the configured program, or mj_queuerun beside
 * us (installed), or ../queuerun/mj_queuerun (the build tree) */
int
queueserv_runner_find(struct qs *qs, char *err, size_t errlen)
{
	const char *conf = qs->s.queueserv_runner_program;

	if (conf[0] == '\0')
		return selfpath_sibling("mj_queuerun", "queuerun", qs->runner,
		    sizeof(qs->runner), err, errlen);
	if (access(conf, X_OK) == 0 && realpath(conf, qs->runner) != NULL)
		return 0;
	snprintf(err, errlen, "runner_program %s: %s", conf, strerror(errno));
	return -1;
}

/* runner_exec - in the child: fd 3 is the link, then exec */
static void
runner_exec(struct qs *qs, struct slot *sl, int fd)
{
	const char *argv[16];
	sigset_t none;
	int i = 0, null, sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (fd == RUNNER_FD) {
		if (fcntl(fd, F_SETFD, 0) == -1)
			_exit(127);
	} else if (dup2(fd, RUNNER_FD) == -1) {
		_exit(127);
	}
	if ((null = open("/dev/null", O_RDONLY)) != -1 && null != 0) {
		dup2(null, 0);
		close(null);
	}
	closefrom(RUNNER_FD + 1);
	argv[i++] = "mj_queuerun";
	if (qs->config[0] != '\0') {
		argv[i++] = "-C";
		argv[i++] = qs->config;
	}
	argv[i++] = "-s";
	argv[i++] = "3";
	if (qs->foreground)
		argv[i++] = "-f";
	if (qs->debug)
		argv[i++] = "-d";
	/* The first min_runners slots are the pool's floor: no idle exit. */
	if (sl->index < qs->s.queueserv_min_runners)
		argv[i++] = "-k";
	argv[i] = NULL;
	execv(qs->runner, (char *const *)argv);
	_exit(127);
}

/* queueserv_runner_spawn - a new runner in this slot */
int
queueserv_runner_spawn(struct qs *qs, struct slot *sl)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		log_warn("runner slot %d: socketpair", sl->index);
		return -1;
	}
	if ((pid = fork()) == -1) {
		log_warn("runner slot %d: fork", sl->index);
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		runner_exec(qs, sl, sv[1]);
	}
	close(sv[1]);
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1)
		log_warn("runner slot %d: O_NONBLOCK", sl->index);
	sl->pid = pid;
	sl->fd = sv[0];
	sl->inlen = 0;
	sl->spawned = sl->heard = clock_ms();
	sl->started_wall = time(NULL);
	sl->deadline = 0;
	sl->rescan_sent = 0;
	sl->said_idle_bye = 0;
	sl->hang_stop = 0;
	sl->sent_kill = 0;
	sl->inhand = 0;
	sl->done = 0;
	sl->shake[0] = '\0';
	log_debug("runner %ld started in slot %d", (long)pid, sl->index);
	return 0;
}

/* queueserv_runner_send - one line; never blocks (a runner that does not
 * read is caught by its silence, not by us waiting on it) */
void
queueserv_runner_send(struct slot *sl, const char *line)
{
	char buf[QS_LINE_MAX];
	int n;

	if (sl->fd == -1)
		return;
	n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return;
	if (send(sl->fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n)
		log_debug("runner %ld (slot %d): cannot send \"%s\"",
		    (long)sl->pid, sl->index, line);
}

/* queueserv_runner_signal - signal the slot's process, if any */
void
queueserv_runner_signal(struct slot *sl, int sig)
{
	if (sl->pid > 0 && kill(sl->pid, sig) == -1 && errno != ESRCH)
		log_warn("runner %ld: kill %d", (long)sl->pid, sig);
}

/* queueserv_runner_close - close our end of the link */
void
queueserv_runner_close(struct slot *sl)
{
	if (sl->fd != -1) {
		close(sl->fd);
		sl->fd = -1;
	}
	sl->inlen = 0;
}

/* queueserv_runner_reap - one exited child, or 0 when none is left:
 * its pid, and in *slp its slot (wait_status set) when it was a runner,
 * NULL when it was a helper; the caller carries the exit through */
pid_t
queueserv_runner_reap(struct qs *qs, struct slot **slp)
{
	pid_t pid;
	size_t i;
	int st;

	*slp = NULL;
	if ((pid = waitpid(-1, &st, WNOHANG)) <= 0)
		return 0;
	for (i = 0; i < qs->nslots; i++) {
		if (qs->slots[i].pid == pid) {
			qs->slots[i].wait_status = st;
			*slp = &qs->slots[i];
			break;
		}
	}
	return pid;
}

/* queueserv_runner_backoff - when the slot may spawn again */
long long
queueserv_runner_backoff(struct slot *sl, long long now)
{
	long long delay = 0, at;

	if (sl->deaths > 0) {
		delay = 1000LL << (sl->deaths < 6 ? sl->deaths - 1 : 5);
		if (delay > QS_BACKOFF_MAX)
			delay = QS_BACKOFF_MAX;
	}
	at = now + delay;
	if (at < sl->spawned + QS_SPAWN_MIN)
		at = sl->spawned + QS_SPAWN_MIN;
	return at;
}
