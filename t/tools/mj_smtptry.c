/*
 * mj_smtptry - drive the SMTP client (smtp/smtp_*) from the tests.
 *
 * Opens one session, runs one transaction per recipient group over it
 * (RSET between), closes with QUIT, and prints one line per recipient
 * outcome and the session's feedback class, so a test asserts exact
 * lines.  The message is read from -m FILE or standard input; with -W
 * it is sent as a copy made whole in memory, as a one-click copy with
 * its own footer link is (smtp_data_whole).
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

#include "smtp.h"

static const char *outcome_names[] = {"sent", "deferred", "bounced"};

/* usage - print the options and exit */
static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
	    "usage: mj_smtptry {-H addr | -M nexthop [-D dns_server]}\n"
	    "           [-p port] [-f sender] [-e helo] [-t ms] [-T stage=ms]\n"
	    "           [-b batch] [-m file] [-W] -r rcpt ... [-N -r rcpt "
	    "...]\n"
	    "  -M resolves the nexthop (MX) and tries its addresses in turn\n"
	    "  -N starts a new transaction on the same session\n"
	    "  -b N splits each transaction into batches of N recipients\n"
	    "  -W sends the message as a copy made whole in memory\n"
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

/* open_session - try the addresses in order until one gives a session */
static int
open_session(struct smtp_session *s, const struct mx_list *l, const char *helo,
    const struct smtp_timeouts *to)
{
	struct smtp_origin o = {helo, NULL, 0};
	struct smtp_status st;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (smtp_session_open(s, l->v[i].host,
			(const struct sockaddr *)&l->v[i].addr, l->v[i].addrlen,
			&o, to, &st) == 0) {
			printf("session ok relay=%s esmtp=%d pipelining=%d "
			       "size=%d/%lld 8bitmime=%d\n",
			    s->peer, !!(s->features & SMTP_FEAT_ESMTP),
			    !!(s->features & SMTP_FEAT_PIPELINING),
			    !!(s->features & SMTP_FEAT_SIZE), s->size_limit,
			    !!(s->features & SMTP_FEAT_8BITMIME));
			return 0;
		}
		/* The runner's move too: on to the next address. */
		print_status("session failed", &st);
	}
	return -1;
}

/* resolve - the addresses to try: the IP literal, or the nexthop's */
static void
resolve(const char *host, const char *nexthop, const char *dns, int port,
    struct mx_list *l)
{
	struct mx_resolver r;
	enum mx_status st;
	char why[512];

	memset(l, 0, sizeof(*l));
	if (host != NULL) {
		if (mx_parse_literal(host, port, l) != 1)
			errx(EX_USAGE, "-H wants an IP address: %s", host);
		return;
	}
	if (mx_resolver_init(&r, dns, why, sizeof(why)) == -1)
		errx(EX_CONFIG, "%s", why);
	if ((st = mx_resolve(&r, nexthop, port, l, why, sizeof(why))) !=
	    MX_OK) {
		printf("resolve %s: %s\n",
		    st == MX_TEMPFAIL ? "tempfail" : "notfound", why);
		exit(st == MX_TEMPFAIL ? EX_TEMPFAIL : EX_NOHOST);
	}
	mx_resolver_close(&r);
}

/* main - parse, open, run the transactions, close */
int
main(int argc, char **argv)
{
	struct smtp_timeouts to;
	struct smtp_session s;
	struct smtp_status st;
	struct smtp_data_msg msg;
	struct smtp_xact x;
	struct mx_list targets;
	struct smtp_rcpt *rcpts;
	size_t nrcpt = 0, i, start, end, *groups, ngroups = 1;
	const char *host = NULL, *sender = "", *helo = "localhost",
		   *path = NULL, *nexthop = NULL, *dns = "";
	char prefix[600];
	int c, port = 25, batch = 0, xact = 0, ms, fd, stale = 0, whole = 0;
	char *copy = NULL;
	off_t size;

	smtp_session_timeouts(&to);
	if ((rcpts = calloc(argc, sizeof(*rcpts))) == NULL ||
	    (groups = calloc(argc + 1, sizeof(*groups))) == NULL)
		err(EX_OSERR, "calloc");
	while ((c = getopt(argc, argv, "b:D:e:f:H:m:M:Np:r:t:T:W")) != -1) {
		switch (c) {
		case 'b':
			batch = atoi(optarg);
			break;
		case 'D':
			dns = optarg;
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
		case 'M':
			nexthop = optarg;
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
		case 'W':
			whole = 1;
			break;
		default:
			usage();
		}
	}
	if ((host == NULL) == (nexthop == NULL) || nrcpt == 0 || optind != argc)
		usage();
	groups[ngroups] = nrcpt;
	resolve(host, nexthop, dns, port, &targets);
	fd = message_fd(path, &size);
	if (smtp_data_open(&msg, fd, size, 0) == -1)
		err(EX_IOERR, "read message");
	if (whole) {
		if ((copy = malloc((size_t)size + 1)) == NULL)
			err(EX_OSERR, "malloc");
		if (pread(fd, copy, (size_t)size, 0) != (ssize_t)size)
			err(EX_IOERR, "read message");
		smtp_data_whole(&msg, copy, (size_t)size);
	}

	if (open_session(&s, &targets, helo, &to) == -1)
		goto negative;
	for (i = 0; i < ngroups; i++) {
		for (start = groups[i]; start < groups[i + 1]; start = end) {
			end = groups[i + 1];
			if (batch > 0 && end - start > (size_t)batch)
				end = start + batch;
			xact++;
			x = (struct smtp_xact){sender, rcpts + start,
			    end - start, &msg, NULL, NULL};
			if (smtp_xact_run(&s, &x, NULL, &st) ==
			    SMTP_XACT_STALE) {
				/* The runner's move: a fresh session. */
				printf("xact=%d stale\n", xact);
				if (stale++ > 0)
					errx(EX_SOFTWARE, "stale twice");
				smtp_session_close(&s);
				if (open_session(&s, &targets, helo, &to) == -1)
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
	mx_list_free(&targets);
	free(copy);
	free(rcpts);
	free(groups);
	return 0;
}
