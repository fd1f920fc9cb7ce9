/*
 * enqueue_poke.c - tell mj_queueserv that there is new mail.
 *
 * The poke itself is spool_poke's.  When nothing listens and start_server
 * is on, start mj_queueserv (found beside this program) detached, one
 * starter at a time, and do not wait for it.  Nothing here can fail the
 * enqueue: the message is already committed, and a runner's periodic walk finds
 * it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enqueue.h"
#include "spool_poke.h"

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
	if (spool_poke(s->spool_dir, (int)s->enqueue_poke_timeout_ms) == -1 &&
	    (errno == ENOENT || errno == ECONNREFUSED) &&
	    s->enqueue_start_server)
		poke_start_server(s->spool_dir, config);
}
