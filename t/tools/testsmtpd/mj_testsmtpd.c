/*
 * mj_testsmtpd - the scriptable SMTP server of the tests.
 *
 * One process, one poll() loop, one state machine per session: it holds
 * hundreds of concurrent sessions, and because only this process writes the
 * log, its lines never interleave.  Without options it is a well-behaved
 * ESMTP sink (PIPELINING, SIZE, 8BITMIME) that logs one line per accepted
 * recipient after the end of DATA, so a test counts deliveries exactly.
 * Every misbehaviour a test needs (scripted replies, delays, dropped
 * connections, silence, garbage, 2 MB lines, one-byte writes, session
 * limits) is chosen on the command line, for every time a stage comes
 * or for its Nth time in a session ("eod#2"); see usage().  With --tls-cert
 * and --tls-key it offers STARTTLS (OpenSSL, server side) and logs each
 * handshake (--tls-log), so the tests see the protocol, the SNI name and
 * whether the session was resumed.
 *
 * This file is the program: start-up (limits, signals, the listener, the
 * port and pid files) and the poll loop; testsmtpd.h names the others.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "testsmtpd.h"

static int sigpipe_fds[2];

/* now_ms - monotonic clock in milliseconds */
long long
now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* listen_setup - bind 127.0.0.1:port and publish the chosen port */
static int
listen_setup(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	char buf[32];
	int fd, one = 1;

	sin.sin_port = htons(cf.port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, SOMAXCONN) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		err(1, "listen on 127.0.0.1:%d", cf.port);
	if (cf.port_file != NULL) {
		snprintf(buf, sizeof(buf), "%d\n", ntohs(sin.sin_port));
		write_file_atomic(cf.port_file, buf);
	}
	return fd;
}

/* on_signal - wake the poll loop through the self-pipe */
static void
on_signal(int sig)
{
	int save = errno;
	ssize_t n;

	(void)sig;
	n = write(sigpipe_fds[1], "", 1);
	(void)n;
	errno = save;
}

/* setup - limits, output files, TLS and signals */
static void
setup(void)
{
	struct rlimit rl;
	struct sigaction sa = {.sa_handler = on_signal};

	/* Hundreds of sessions, each with a socket and a save file. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	record_open();
	tls_open();
	if (pipe2(sigpipe_fds, O_NONBLOCK | O_CLOEXEC) == -1)
		err(1, "pipe");
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1)
		err(1, "sigaction");
	signal(SIGPIPE, SIG_IGN);
}

/* main - set up, then run the poll loop until SIGTERM */
int
main(int argc, char **argv)
{
	struct pollfd *pfd = NULL;
	long long now, next;
	size_t i, n;
	char buf[32];
	int lfd;

	parse_args(argc, argv);
	setup();
	lfd = listen_setup();
	if (cf.pid_file != NULL) {
		snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
		write_file_atomic(cf.pid_file, buf);
	}
	for (;;) {
		if ((pfd = reallocarray(pfd, nsessions + 2, sizeof(*pfd))) ==
		    NULL)
			err(1, "reallocarray");
		pfd[0] =
		    (struct pollfd){.fd = sigpipe_fds[0], .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = lfd, .events = POLLIN};
		next = -1;
		now = now_ms();
		for (i = 0; i < nsessions; i++)
			pfd[i + 2] = (struct pollfd){.fd = sessions[i]->fd,
			    .events = session_poll(sessions[i], now, &next)};
		n = nsessions;
		if (poll(pfd, n + 2, (int)next) == -1 && errno != EINTR)
			err(1, "poll");
		if (pfd[0].revents & POLLIN)
			break;
		for (i = 0; i < n; i++) {
			session_io(sessions[i], pfd[i + 2].revents);
			session_input(sessions[i]);
		}
		sessions_reap();
		if (pfd[1].revents & POLLIN)
			session_accept(lfd);
	}
	for (i = 0; i < nsessions; i++)
		session_close(sessions[i]);
	sessions_reap();
	free(sessions);
	free(pfd);
	tls_close();
	if (cf.pid_file != NULL)
		unlink(cf.pid_file);
	return 0;
}
