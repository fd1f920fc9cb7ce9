/*
 * mj_unixsock - a unix socket for tests of mj_enqueue's poke.
 *
 *   mj_unixsock stale PATH          bind PATH and exit: a stale socket
 *   mj_unixsock serve PATH N OUT    accept N connections, append each
 *                                   line received to OUT, answer "ok"
 *   mj_unixsock mute PATH           listen and never accept or answer
 *                                   (until killed)
 *   mj_unixsock hold PATH N         connect N clients to PATH, say
 *                                   "connected N" on stdout, then stay
 *                                   silent until killed
 *   mj_unixsock syslog PATH OUT     a datagram socket as syslogd's
 *                                   /dev/log: each datagram appended to
 *                                   OUT as a line, until killed
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* unixsock_addr - the address of path */
static struct sockaddr_un
unixsock_addr(const char *path)
{
	struct sockaddr_un sun;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		errx(1, "%s: path too long", path);
	return sun;
}

/* unixsock_bind - a bound (and listening, if asked) socket on path */
static int
unixsock_bind(const char *path, int listening)
{
	struct sockaddr_un sun = unixsock_addr(path);
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		err(1, "socket");
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "bind %s", path);
	if (listening && listen(fd, 16) == -1)
		err(1, "listen");
	return fd;
}

/* unixsock_serve - n connections, one line each, logged and answered */
static void
unixsock_serve(int fd, long n, const char *out)
{
	char line[256];
	FILE *log;
	ssize_t got;
	int c;

	if ((log = fopen(out, "a")) == NULL)
		err(1, "%s", out);
	setvbuf(log, NULL, _IOLBF, 0);
	while (n-- > 0) {
		if ((c = accept(fd, NULL, NULL)) == -1)
			err(1, "accept");
		if ((got = read(c, line, sizeof(line) - 1)) > 0) {
			line[got] = '\0';
			fputs(line, log);
			if (write(c, "ok\n", 3) != 3)
				warn("write");
		}
		close(c);
	}
	fclose(log);
}

/* unixsock_hold - n silent clients of path, until killed */
static void
unixsock_hold(const char *path, long n)
{
	struct sockaddr_un sun = unixsock_addr(path);
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
			err(1, "socket");
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
			err(1, "connect %s", path);
	}
	printf("connected %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
}

/* unixsock_syslog - a stand-in syslog daemon on path */
static void
unixsock_syslog(const char *path, const char *out)
{
	struct sockaddr_un sun = unixsock_addr(path);
	char msg[4096];
	FILE *log;
	ssize_t got;
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_DGRAM, 0)) == -1)
		err(1, "socket");
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "bind %s", path);
	if ((log = fopen(out, "a")) == NULL)
		err(1, "%s", out);
	setvbuf(log, NULL, _IOLBF, 0);
	for (;;) {
		if ((got = recv(fd, msg, sizeof(msg) - 1, 0)) == -1)
			err(1, "recv");
		msg[got] = '\0';
		fprintf(log, "%s\n", msg);
	}
}

int
main(int argc, char **argv)
{
	int fd;

	if (argc == 3 && strcmp(argv[1], "stale") == 0) {
		unixsock_bind(argv[2], 0);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "serve") == 0) {
		fd = unixsock_bind(argv[2], 1);
		unixsock_serve(fd, atol(argv[3]), argv[4]);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "hold") == 0)
		unixsock_hold(argv[2], atol(argv[3]));
	if (argc == 4 && strcmp(argv[1], "syslog") == 0)
		unixsock_syslog(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "mute") == 0) {
		unixsock_bind(argv[2], 1);
		for (;;)
			pause();
	}
	fprintf(stderr, "usage: mj_unixsock stale PATH | serve PATH N OUT | "
			"mute PATH | hold PATH N | syslog PATH OUT\n");
	return 64;
}
