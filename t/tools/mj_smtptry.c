/*
 * mj_smtptry - drive the SMTP client (queuerun/smtp_*) from the tests.
 *
 * Opens one session, runs one transaction per recipient group over it
 * (RSET between), closes with QUIT, and prints one line per recipient
 * outcome and the session's feedback class, so a test asserts exact
 * lines.  The message is read from -m FILE or standard input.
 */
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "smtp_data.h"
#include "smtp_session.h"
#include "smtp_xact.h"

static const char *outcome_names[] = {"sent", "deferred", "bounced"};

/* usage - print the options and exit */
static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
	    "usage: mj_smtptry -H addr [-p port] [-f sender] [-e helo]\n"
	    "           [-t ms] [-T stage=ms] [-b batch] [-m file]\n"
	    "           -r rcpt ... [-N -r rcpt ...]\n"
	    "  -N starts a new transaction on the same session\n"
	    "  -b N splits each transaction into batches of N recipients\n"
	    "  stages: connect greeting helo command data eod\n");
	exit(EX_USAGE);
}

/* set_timeout - -T stage=ms */
static void
set_timeout(struct smtp_timeouts *to, const char *arg)
{
	static const struct {
		const char *name;
		size_t off;
	} stages[] = {{"connect", offsetof(struct smtp_timeouts, connect_ms)},
	    {"greeting", offsetof(struct smtp_timeouts, greeting_ms)},
	    {"helo", offsetof(struct smtp_timeouts, helo_ms)},
	    {"command", offsetof(struct smtp_timeouts, command_ms)},
	    {"data", offsetof(struct smtp_timeouts, data_ms)},
	    {"eod", offsetof(struct smtp_timeouts, eod_ms)}};
	const char *eq = strchr(arg, '=');
	size_t i;

	for (i = 0; eq != NULL && i < sizeof(stages) / sizeof(stages[0]); i++)
		if (strlen(stages[i].name) == (size_t)(eq - arg) &&
		    strncmp(stages[i].name, arg, eq - arg) == 0) {
			*(int *)((char *)to + stages[i].off) = atoi(eq + 1);
			return;
		}
	errx(EX_USAGE, "bad -T %s", arg);
}

/* message_fd - a pread-able fd of the message, and its size */
static int
message_fd(const char *path, off_t *size)
{
	char tmp[] = "/tmp/mj_smtptry.XXXXXX", buf[65536];
	struct stat sb;
	ssize_t n;
	int fd, out;

	if (path != NULL && (fd = open(path, O_RDONLY)) == -1)
		err(EX_NOINPUT, "%s", path);
	if (path == NULL)
		fd = 0;
	if (fstat(fd, &sb) == -1)
		err(EX_IOERR, "fstat");
	if (S_ISREG(sb.st_mode)) {
		*size = sb.st_size;
		return fd;
	}
	/* A pipe cannot be read twice: copy it to an unlinked file. */
	if ((out = mkstemp(tmp)) == -1 || unlink(tmp) == -1)
		err(EX_IOERR, "%s", tmp);
	for (*size = 0; (n = read(fd, buf, sizeof(buf))) > 0; *size += n)
		if (write(out, buf, n) != n)
			err(EX_IOERR, "write %s", tmp);
	if (n == -1)
		err(EX_IOERR, "read");
	return out;
}

/* print_status - "key=value" fields of one status, text last */
static void
print_status(const char *prefix, const struct smtp_status *st)
{
	printf("%s status=%s code=%d dsn=%s text=%s (%s)\n", prefix,
	    outcome_names[st->outcome], st->code, st->dsn, st->text,
	    st->stage ? st->stage : "-");
}

/* open_session - open and print the session line */
static int
open_session(struct smtp_session *s, const char *host,
    const struct sockaddr_storage *ss, socklen_t sslen, const char *helo,
    const struct smtp_timeouts *to)
{
	struct smtp_status st;

	if (smtp_session_open(s, host, (const struct sockaddr *)ss, sslen, helo,
		to, &st) == -1) {
		print_status("session failed", &st);
		return -1;
	}
	printf("session ok relay=%s esmtp=%d pipelining=%d size=%d/%lld "
	       "8bitmime=%d\n",
	    s->peer, !!(s->features & SMTP_FEAT_ESMTP),
	    !!(s->features & SMTP_FEAT_PIPELINING),
	    !!(s->features & SMTP_FEAT_SIZE), s->size_limit,
	    !!(s->features & SMTP_FEAT_8BITMIME));
	return 0;
}

/* main - parse, open, run the transactions, close */
int
main(int argc, char **argv)
{
	struct smtp_timeouts to;
	struct smtp_session s;
	struct smtp_status st;
	struct smtp_data_msg msg;
	struct sockaddr_storage ss = {0};
	struct smtp_rcpt *rcpts;
	size_t nrcpt = 0, i, start, end, *groups, ngroups = 1;
	const char *host = NULL, *sender = "", *helo = "localhost",
		   *path = NULL;
	char prefix[600];
	int c, port = 25, batch = 0, xact = 0, ms, fd, stale = 0;
	socklen_t sslen;
	off_t size;

	smtp_session_timeouts(&to);
	if ((rcpts = calloc(argc, sizeof(*rcpts))) == NULL ||
	    (groups = calloc(argc + 1, sizeof(*groups))) == NULL)
		err(EX_OSERR, "calloc");
	while ((c = getopt(argc, argv, "b:e:f:H:m:Np:r:t:T:")) != -1) {
		switch (c) {
		case 'b':
			batch = atoi(optarg);
			break;
		case 'e':
			helo = optarg;
			break;
		case 'f':
			sender = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		case 'm':
			path = optarg;
			break;
		case 'N':
			groups[ngroups++] = nrcpt;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'r':
			rcpts[nrcpt++].addr = optarg;
			break;
		case 't':
			ms = atoi(optarg);
			to = (struct smtp_timeouts){ms, ms, ms, ms, ms, ms};
			break;
		case 'T':
			set_timeout(&to, optarg);
			break;
		default:
			usage();
		}
	}
	if (host == NULL || nrcpt == 0 || optind != argc)
		usage();
	groups[ngroups] = nrcpt;
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) ==
	    1) {
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
		sslen = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, host,
		       &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		sslen = sizeof(struct sockaddr_in6);
	} else
		errx(EX_USAGE, "-H wants an IP address: %s", host);
	fd = message_fd(path, &size);
	if (smtp_data_open(&msg, fd, size) == -1)
		err(EX_IOERR, "read message");

	if (open_session(&s, host, &ss, sslen, helo, &to) == -1)
		goto negative;
	for (i = 0; i < ngroups; i++) {
		for (start = groups[i]; start < groups[i + 1]; start = end) {
			end = groups[i + 1];
			if (batch > 0 && end - start > (size_t)batch)
				end = start + batch;
			xact++;
			if (smtp_xact_run(&s, sender, rcpts + start,
				end - start, &msg, &st) == SMTP_XACT_STALE) {
				/* The runner's move: a fresh session. */
				printf("xact=%d stale\n", xact);
				if (stale++ > 0)
					errx(EX_SOFTWARE, "stale twice");
				smtp_session_close(&s);
				if (open_session(
					&s, host, &ss, sslen, helo, &to) == -1)
					goto negative;
				end = start;
				continue;
			}
			stale = 0;
			for (; start < end; start++) {
				snprintf(prefix, sizeof(prefix),
				    "xact=%d to=<%s>", xact, rcpts[start].addr);
				print_status(prefix, &rcpts[start].st);
			}
		}
	}
	smtp_session_close(&s);
	printf("feedback=positive\n");
	goto out;
negative:
	printf("feedback=negative\n");
out:
	free(rcpts);
	free(groups);
	return 0;
}
