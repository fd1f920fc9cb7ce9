/*
 * spool_poke.c - tell mj_queueserv that there is new mail: one line to
 * queueserv.sock, one line back, each bounded by a timeout of
 * milliseconds.  Used by every program that commits mail into QUEUE/
 * from outside the runners (mj_enqueue, mj_unsubscribe).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "spool_path.h"
#include "spool_poke.h"

/* spool_poke_wait - poll one fd until an event or the deadline (ms) */
static int
spool_poke_wait(int fd, short events, int timeout_ms)
{
	struct pollfd pfd = {fd, events, 0};
	int r;

	while ((r = poll(&pfd, 1, timeout_ms)) == -1 && errno == EINTR)
		;
	return r == 1 ? 0 : -1;
}

/* spool_poke_connect - a non-blocking connection to the socket, or -1 */
static int
spool_poke_connect(const char *path, int timeout_ms)
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
		if (spool_poke_wait(fd, POLLOUT, timeout_ms) == 0 &&
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

/* spool_poke - the poke; 0 the server took it, -1 with errno (ENOENT or
 * ECONNREFUSED: no server listens) */
int
spool_poke(const char *spool, int timeout_ms)
{
	char path[PATH_MAX], reply[64];
	int fd;

	if (spool_path(path, sizeof(path), spool, SPOOL_SOCKET) == -1)
		return -1;
	if ((fd = spool_poke_connect(path, timeout_ms)) == -1)
		return -1;
	/* The reply only tells that the server took the line; its text does
	 * not matter. */
	if (send(fd, "poke\n", 5, MSG_NOSIGNAL) == 5 &&
	    spool_poke_wait(fd, POLLIN, timeout_ms) == 0 &&
	    read(fd, reply, sizeof(reply)) == -1)
		reply[0] = '\0';
	close(fd);
	return 0;
}
