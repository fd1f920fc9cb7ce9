/*
 * queueserv_control.c - the requests on queueserv.sock, both sides.
 *
 * Server side: "poke" gets "ok"; "stop", "reload", "status [-j|json|-p]"
 * and "flush" get a reply ended by an empty line.  Status and flush walk
 * the spool, which can take a while on a big queue, so they run in a
 * helper child that writes the reply itself: the poll loop never waits
 * on the disk or on a client that reads slowly.  "stop" keeps the
 * connection open until the server exits, so "mj_queueserv stop"
 * returns when the server is gone.  "stop", "reload" and "flush" are
 * for root and the server's user only (SO_PEERCRED); anyone who can
 * connect may poke and ask for the status.  What a request asks of
 * the server itself (stop, reload) is returned to the loop, which does
 * it: nothing here calls back into mj_queueserv.c or the pool.
 *
 * Client side: mj_queueserv status|stop|reload|flush sends the line and
 * prints the reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "log.h"
#include "queueserv.h"
#include "spool_flush.h"

/* control_helper_slot - a free helper slot, or -1 */
static int
control_helper_slot(const struct qs *qs)
{
	int i;

	for (i = 0; i < QS_HELPERS_MAX; i++)
		if (qs->helpers[i] == 0)
			return i;
	return -1;
}

/* control_flush - in the helper: every deferred message due now */
static int
control_flush(const struct qs *qs, int fd)
{
	char buf[128];
	long n = 0;

	if (spool_flush(qs->s.spool_dir, time(NULL), &n) == -1)
		snprintf(
		    buf, sizeof(buf), "error: flush: %s\n\n", strerror(errno));
	else
		snprintf(buf, sizeof(buf),
		    "ok %ld deferred messages due now\n\n", n);
	if (n > 0)
		log_info("flush: %ld deferred messages due now", n);
	return io_write_all(fd, buf, strlen(buf));
}

/* control_fork - run status or flush in a child that owns the client */
static void
control_fork(struct qs *qs, struct client *c, int flush, int format)
{
	struct timeval tv;
	int slot, r;
	pid_t pid;

	if ((slot = control_helper_slot(qs)) == -1) {
		queueserv_listen_reply(c, "error: busy, try again\n\n");
		return;
	}
	if ((pid = fork()) == -1) {
		log_warn("fork");
		queueserv_listen_reply(c, "error: cannot fork\n\n");
		return;
	}
	if (pid == 0) {
		signal(SIGCHLD, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		tv.tv_sec = qs->s.queueserv_client_timeout_ms / 1000;
		tv.tv_usec = (qs->s.queueserv_client_timeout_ms % 1000) * 1000;
		if (fcntl(c->fd, F_SETFL, 0) == -1 ||
		    setsockopt(
			c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1)
			_exit(1);
		r = flush ? control_flush(qs, c->fd)
			  : queueserv_status_write(qs, c->fd, format);
		_exit(r == 0 ? 0 : 1);
	}
	qs->helpers[slot] = pid;
	qs->helper_flush[slot] = flush;
	close(c->fd);
	c->fd = -1;
}

/* queueserv_control_reaped - a helper exited: forget it; 1 when it was
 * a flush, whose due messages want every busy runner to walk again */
int
queueserv_control_reaped(struct qs *qs, pid_t pid)
{
	int i, flushed = 0;

	for (i = 0; i < QS_HELPERS_MAX; i++) {
		if (qs->helpers[i] != pid)
			continue;
		qs->helpers[i] = 0;
		flushed |= qs->helper_flush[i];
	}
	return flushed;
}

/* control_admin - the client may change the server's course: root or
 * the server's own user.  socket_group lets the MTA's processes poke;
 * that must not let them stop, reload or flush. */
static int
control_admin(const struct client *c)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1) {
		log_warn("SO_PEERCRED");
		return 0;
	}
	if (cred.uid == 0 || cred.uid == geteuid())
		return 1;
	log_warnx("control request refused to uid %ld (pid %ld)",
	    (long)cred.uid, (long)cred.pid);
	return 0;
}

/* queueserv_control - act on one request line: queue the reply, or
 * hand the client to a helper (c->fd == -1); what the server itself must
 * do (stop, reload) is returned for the loop to carry out */
enum qs_control_act
queueserv_control(struct qs *qs, struct client *c, const char *line)
{
	if ((strcmp(line, "flush") == 0 || strcmp(line, "stop") == 0 ||
		strcmp(line, "reload") == 0) &&
	    !control_admin(c)) {
		queueserv_listen_reply(c, "error: not allowed\n\n");
	} else if (strcmp(line, "poke") == 0) {
		qs->pokes++;
		qs->want_run = 1;
		queueserv_listen_reply(c, "ok\n");
	} else if (strcmp(line, "status") == 0) {
		control_fork(qs, c, 0, QS_STATUS_TEXT);
	} else if (strcmp(line, "status -j") == 0 ||
		   strcmp(line, "status json") == 0) {
		control_fork(qs, c, 0, QS_STATUS_JSON);
	} else if (strcmp(line, "status -p") == 0) {
		control_fork(qs, c, 0, QS_STATUS_PROM);
	} else if (strcmp(line, "flush") == 0) {
		control_fork(qs, c, 1, 0);
	} else if (strcmp(line, "stop") == 0) {
		queueserv_listen_reply(c, "ok stopping\n\n");
		c->deadline = -1; /* closed when we exit */
		return QS_ACT_STOP;
	} else if (strcmp(line, "reload") == 0) {
		return QS_ACT_RELOAD;
	} else {
		queueserv_listen_reply(c, "error: unknown request\n\n");
	}
	return QS_ACT_NONE;
}

/* queueserv_control_reloaded - the reply to "reload": r is the reload's
 * result, err its reason when it failed */
void
queueserv_control_reloaded(struct client *c, int r, const char *err)
{
	char reply[sizeof(c->out)];

	if (r == -1)
		snprintf(reply, sizeof(reply), "error: %.50s\n\n", err);
	else
		snprintf(reply, sizeof(reply), "ok reloading\n\n");
	queueserv_listen_reply(c, reply);
}

/* control_connect - a connection to the server, or -1 */
static int
control_connect(const struct qs *qs)
{
	struct sockaddr_un sun;
	int fd, e;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, qs->sock_path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* control_read - read until the empty line (or EOF) within timeout_ms */
static char *
control_read(int fd, int timeout_ms, size_t *lenp)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		if (len >= 2 && buf[len - 1] == '\n' && buf[len - 2] == '\n')
			break;
		if (poll(&pfd, 1, timeout_ms) != 1)
			goto fail;
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			if ((nb = realloc(buf, cap)) == NULL)
				goto fail;
			buf = nb;
		}
		if ((n = read(fd, buf + len, cap - len - 1)) == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (buf == NULL || len == 0)
		goto fail;
	buf[len] = '\0';
	*lenp = len;
	return buf;
fail:
	free(buf);
	return NULL;
}

/* queueserv_control_client - send one request, print the reply; the
 * exit code: 0, QS_EX_FAIL for an error reply, EX_UNAVAILABLE when no
 * server answers */
int
queueserv_control_client(const struct qs *qs, const char *request)
{
	char line[QS_LINE_MAX], rest[16];
	struct pollfd pfd;
	int fd, wait_ms, e;
	size_t len;
	char *reply;

	signal(SIGPIPE, SIG_IGN);
	if ((fd = control_connect(qs)) == -1) {
		e = errno;
		if (e == EACCES || e == EPERM) {
			/* the socket's mode or group keeps this user out */
			fprintf(stderr,
			    "mj_queueserv: permission denied: this user may "
			    "not connect to %s (socket_mode, socket_group)\n",
			    qs->sock_path);
			return EX_NOPERM;
		}
		fprintf(stderr, "mj_queueserv: no server answers on %s: %s\n",
		    qs->sock_path, strerror(e));
		/* status without a server: what the spool holds */
		if (strncmp(request, "status", 6) == 0 &&
		    (e == ENOENT || e == ECONNREFUSED))
			(void)queueserv_status_offline(qs,
			    strcmp(request, "status -j") == 0 ? QS_STATUS_JSON
			    : strcmp(request, "status -p") == 0
				? QS_STATUS_PROM
				: QS_STATUS_TEXT);
		return EX_UNAVAILABLE;
	}
	snprintf(line, sizeof(line), "%s\n", request);
	if (io_write_all(fd, line, strlen(line)) == -1) {
		fprintf(stderr, "mj_queueserv: cannot send to %s: %s\n",
		    qs->sock_path, strerror(errno));
		close(fd);
		return EX_UNAVAILABLE;
	}
	if ((reply = control_read(fd, 30000, &len)) == NULL) {
		fprintf(
		    stderr, "mj_queueserv: no reply from %s\n", qs->sock_path);
		close(fd);
		return EX_UNAVAILABLE;
	}
	/* Print without the terminating empty line. */
	if (len >= 2 && reply[len - 1] == '\n' && reply[len - 2] == '\n')
		len--;
	fwrite(reply, 1, len, stdout);
	if (strcmp(request, "stop") == 0 && strncmp(reply, "ok", 2) == 0) {
		/* The server closes the connection when it exits. */
		wait_ms = (int)(qs->s.queueserv_shutdown_timeout +
				qs->s.queueserv_runner_kill_timeout + 5) *
			  1000;
		pfd.fd = fd;
		pfd.events = POLLIN;
		while (poll(&pfd, 1, wait_ms) == 1 &&
		       read(fd, rest, sizeof(rest)) > 0)
			;
	}
	close(fd);
	len = strncmp(reply, "error", 5) == 0;
	free(reply);
	return len ? QS_EX_FAIL : 0;
}
