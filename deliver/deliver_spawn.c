/*
 * deliver_spawn.c - a child program for the runner's threads.
 *
 * posix_spawn, never a fork of a threaded process: the child's signals
 * are reset and unblocked, it leads a process group of its own (so that
 * a deadline kills it and whatever it started), its standard input is
 * the caller's descriptor or /dev/null, and its standard output (and,
 * for the pipe transport, its standard error) is a close-on-exec pipe
 * whose read end only the caller holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "deliver_spawn.h"

/* deliver_spawn_actions - the child's descriptors: standard input in
 * (or /dev/null), standard output (and error) the pipe's write end w;
 * 0 or an errno value */
static int
deliver_spawn_actions(
    posix_spawn_file_actions_t *fa, int in, int w, enum deliver_spawn_err e)
{
	int rc;

	if ((rc = posix_spawn_file_actions_init(fa)) != 0)
		return rc;
	if ((rc = in != -1 ? posix_spawn_file_actions_adddup2(fa, in, 0)
			   : posix_spawn_file_actions_addopen(
				 fa, 0, "/dev/null", O_RDONLY, 0)) != 0 ||
	    (rc = posix_spawn_file_actions_adddup2(fa, w, 1)) != 0 ||
	    (e == DELIVER_SPAWN_ERR_PIPE &&
		(rc = posix_spawn_file_actions_adddup2(fa, w, 2)) != 0))
		posix_spawn_file_actions_destroy(fa);
	return rc;
}

/* deliver_spawn_attr - the child's signals reset and unblocked, a
 * process group of its own; 0 or an errno value */
static int
deliver_spawn_attr(posix_spawnattr_t *attr)
{
	sigset_t none, all;
	int rc;

	if ((rc = posix_spawnattr_init(attr)) != 0)
		return rc;
	sigemptyset(&none);
	sigfillset(&all);
	if ((rc = posix_spawnattr_setsigmask(attr, &none)) != 0 ||
	    (rc = posix_spawnattr_setsigdefault(attr, &all)) != 0 ||
	    (rc = posix_spawnattr_setpgroup(attr, 0)) != 0 ||
	    (rc = posix_spawnattr_setflags(
		 attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
			   POSIX_SPAWN_SETPGROUP)) != 0)
		posix_spawnattr_destroy(attr);
	return rc;
}

/* deliver_spawn - start argv[0] with envp; 0 with the child's pid and
 * the read end of its output, or an errno value */
int
deliver_spawn(char *const argv[], char *const envp[], int in,
    enum deliver_spawn_err e, pid_t *pid, int *outfd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int po[2], rc;

	if (pipe2(po, O_CLOEXEC) == -1)
		return errno;
	if ((rc = deliver_spawn_actions(&fa, in, po[1], e)) == 0) {
		if ((rc = deliver_spawn_attr(&attr)) == 0) {
			rc = posix_spawn(pid, argv[0], &fa, &attr, argv, envp);
			posix_spawnattr_destroy(&attr);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	close(po[1]);
	if (rc != 0) {
		close(po[0]);
		return rc;
	}
	*outfd = po[0];
	return 0;
}

/* deliver_spawn_read - the child's output until it closes (or a read
 * fails): the first cap bytes into buf, *total what came in all; 0, or
 * -1 at the deadline */
int
deliver_spawn_read(
    int fd, double deadline, char *buf, size_t cap, size_t *total)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	char chunk[4096];
	size_t n = 0, k;
	ssize_t r;
	int ms;

	*total = 0;
	for (;;) {
		ms = (int)((deadline - clock_now()) * 1000);
		if (ms <= 0)
			return -1;
		/* Read only what poll saw: a read would block past the
		 * deadline. */
		if ((r = poll(&pfd, 1, ms)) == -1 && errno != EINTR)
			return -1;
		if (r <= 0)
			continue;
		if ((r = read(fd, chunk, sizeof(chunk))) == 0)
			return 0;
		if (r == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return 0;
		}
		k = (size_t)r < cap - n ? (size_t)r : cap - n;
		memcpy(buf + n, chunk, k);
		n += k;
		*total += (size_t)r;
	}
}

/* deliver_spawn_wait - reap the child (its process group killed first
 * when asked); its wait status */
int
deliver_spawn_wait(pid_t pid, int kill_first)
{
	int status = 0;

	if (kill_first)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return status;
}
