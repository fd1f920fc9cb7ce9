/*
 * enqueue_poke.c - tell mj_queueserv that there is new mail.
 *
 * One line to queueserv.sock, one line back, each bounded by a timeout of
 * milliseconds.  When nothing listens and start_server is on, start
 * mj_queueserv (found beside this program) detached, one starter at a
 * time, and do not wait for it.  Nothing here can fail the enqueue: the
 * message is already committed, and a runner's periodic walk finds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enqueue.h"

/* poke_wait - poll one fd until an event or the deadline (ms) */
static int
poke_wait(int fd, short events, int timeout_ms)
{
	struct pollfd pfd = {fd, events, 0};
	int r;

	while ((r = poll(&pfd, 1, timeout_ms)) == -1 && errno == EINTR)
		;
	return r == 1 ? 0 : -1;
}

/* poke_connect - a non-blocking connection to the socket, or -1 */
static int
poke_connect(const char *path, int timeout_ms)
{
	struct sockaddr_un sun;
	int fd, err;
	socklen_t len = sizeof(err);

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = socket(
		 AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return fd;
	if (errno == EINPROGRESS || errno == EAGAIN) {
		if (poke_wait(fd, POLLOUT, timeout_ms) == 0 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
		    err == 0)
			return fd;
		errno = ETIMEDOUT;
	}
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/* poke_start_server - start mj_queueserv beside us, detached */
static void
poke_start_server(const char *spool, const char *config)
{
	char self[PATH_MAX], prog[PATH_MAX + 16], lock[PATH_MAX];
	ssize_t n;
	char *slash;
	pid_t pid;
	int fd, null;

	/* One starter at a time; the lock is ours until we exit. */
	if (spool_path(lock, sizeof(lock), spool, SPOOL_STARTLOCK) == -1 ||
	    (fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, SPOOL_FILE_MODE)) ==
		-1 ||
	    flock(fd, LOCK_EX | LOCK_NB) == -1)
		return;
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		return;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return;
	*slash = '\0';
	/* Installed, the two programs are neighbours; in the build tree the
	 * server is in ../queueserv. */
	if ((size_t)snprintf(prog, sizeof(prog), "%s/mj_queueserv", self) >=
	    sizeof(prog))
		return;
	if (access(prog, X_OK) == -1 &&
	    (size_t)snprintf(prog, sizeof(prog), "%s/../queueserv/mj_queueserv",
		self) >= sizeof(prog))
		return;
	if ((pid = fork()) == -1)
		return;
	if (pid == 0) {
		/* Double fork: the server is not our child, not our session. */
		if (setsid() == -1 || fork() != 0)
			_exit(0);
		if ((null = open("/dev/null", O_RDWR)) != -1) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		if (config != NULL)
			execl(prog, "mj_queueserv", "-C", config, (char *)NULL);
		else
			execl(prog, "mj_queueserv", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
}

/* enqueue_poke - one line to the server; start it when it is absent */
void
enqueue_poke(const struct settings *s, const char *config)
{
	char path[PATH_MAX], reply[64];
	int fd, ms = (int)s->enqueue_poke_timeout_ms;

	if (spool_path(path, sizeof(path), s->spool_dir, SPOOL_SOCKET) == -1)
		return;
	if ((fd = poke_connect(path, ms)) == -1) {
		if ((errno == ENOENT || errno == ECONNREFUSED) &&
		    s->enqueue_start_server)
			poke_start_server(s->spool_dir, config);
		return;
	}
	/* The reply only tells that the server took the line; its text does
	 * not matter to us. */
	if (send(fd, "poke\n", 5, MSG_NOSIGNAL) == 5 &&
	    poke_wait(fd, POLLIN, ms) == 0 &&
	    read(fd, reply, sizeof(reply)) == -1)
		reply[0] = '\0';
	close(fd);
}
