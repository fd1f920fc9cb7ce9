/*
 * mj_queuerun - walk the spool and deliver what is due.
 *
 *   mj_queuerun [-dfk] [-C file] -s fd   as a runner of mj_queueserv
 *   mj_queuerun [-d] [-C file] -1         one pass: until nothing is due
 *   mj_queuerun [-C file] -l              list the queue
 *   mj_queuerun [-C file] -c              check and repair the spool
 *   mj_queuerun [-C file] -H|-h|-d name   release, hold, delete a message
 *   mj_queuerun --classify file [list@domain]   how a bounce is read
 *
 * The delivery work is queuerun.h's; this file picks the mode.  With -s,
 * runner_link.c owns the loop and speaks to the server over fd; -f logs
 * to stderr (the server runs in the foreground) instead of syslog, and
 * -k keeps the runner when idle (the pool's min_runners).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "deliver.h"
#include "lists.h"
#include "log.h"
#include "queuectl.h"
#include "queuerun.h"
#include "runner_link.h"
#include "settings.h"
#include "spool_path.h"

/* qr_usage - the synopsis, then EX_USAGE */
static int
qr_usage(void)
{
	fprintf(stderr, "usage: mj_queuerun [-dfk] [-C file] -s fd\n"
			"       mj_queuerun [-d] [-C file] -1\n"
			"       mj_queuerun [-C file] -l\n"
			"       mj_queuerun [-C file] -c\n"
			"       mj_queuerun [-C file] -H|-h|-d message\n"
			"       mj_queuerun --classify file [list@domain]\n");
	return EX_USAGE;
}

/* qr_list - mj_queuerun -l: the queue as queuectl_list.c words it */
static int
qr_list(const struct settings *s)
{
	int r = 0;

	if (queuectl_list(s, stdout) == -1) {
		fprintf(stderr, "mj_queuerun: cannot read %s/%s: %s\n",
		    s->spool_dir, SPOOL_QUEUE, strerror(errno));
		r = EX_TEMPFAIL;
	}
	if (fflush(stdout) == EOF)
		r = EX_IOERR;
	return r;
}

/* qr_check - mj_queuerun -c: 0 when the spool is sound after repair */
static int
qr_check(const struct settings *s)
{
	long left;

	if ((left = queuectl_check(s, stdout)) == -1) {
		fprintf(stderr, "mj_queuerun: cannot read %s/%s: %s\n",
		    s->spool_dir, SPOOL_QUEUE, strerror(errno));
		return EX_TEMPFAIL;
	}
	if (fflush(stdout) == EOF)
		return EX_IOERR;
	return left == 0 ? 0 : 1;
}

/* qr_once - one pass: step until nothing is due or in hand */
static int
qr_once(struct queuerun *q)
{
	struct pollfd pfd;
	int ms;

	queuerun_rescan(q);
	for (;;) {
		if (queuerun_step(q, &ms) == -1)
			return EX_SOFTWARE;
		if (queuerun_idle(q) && queuerun_busy(q) == 0)
			return 0;
		pfd.fd = queuerun_event_fd(q);
		pfd.events = POLLIN;
		if (poll(&pfd, 1, ms < 0 ? 1000 : ms) == -1 && errno != EINTR)
			return EX_OSERR;
	}
}

int
main(int argc, char **argv)
{
	struct runner_link_opts o = {-1, 0};
	const char *config = NULL;
	struct delivery_conf dc;
	struct lists_settings ls;
	struct cluster_settings cs;
	struct settings_part parts[3];
	struct settings s;
	struct queuerun *q;
	char err[512], *end;
	const char *target = NULL;
	enum queuectl_admin_op op = QUEUECTL_RELEASE;
	int c, once = 0, list = 0, check = 0, fg = 0, debug = 0, admin = 0, r;

	setprogname("mj_queuerun");
	umask(027);
	/* the operator's view of a report: no spool, no configuration */
	if (argc >= 3 && argc <= 4 && strcmp(argv[1], "--classify") == 0)
		return queuectl_classify(
		    argv[2], argc == 4 ? argv[3] : NULL, stdout);
	while ((c = getopt(argc, argv, "1C:cD:dfH:h:kls:")) != -1) {
		switch (c) {
		case '1':
			once = 1;
			break;
		case 'C':
			config = optarg;
			break;
		case 'c':
			check = 1;
			break;
		case 'd':
			debug = 1;
			break;
		case 'D':
		case 'H':
		case 'h':
			op = c == 'H'	? QUEUECTL_RELEASE
			     : c == 'h' ? QUEUECTL_HOLD
					: QUEUECTL_DELETE;
			target = optarg;
			admin++;
			break;
		case 'f':
			fg = 1;
			break;
		case 'k':
			o.keep = 1;
			break;
		case 'l':
			list = 1;
			break;
		case 's':
			errno = 0;
			o.fd = (int)strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || o.fd < 0)
				return qr_usage();
			break;
		default:
			return qr_usage();
		}
	}
	if (optind != argc || once + list + check + admin + (o.fd != -1) != 1)
		return qr_usage();
	/* A runner's stderr is the daemon's /dev/null unless the server
	 * runs in the foreground or no syslog daemon listens (log_open
	 * falls back to stderr then, and the server keeps its stderr).
	 * The operator's commands log where the runners log, and print
	 * what was done on stdout too. */
	log_open("mj_queuerun",
	    (o.fd != -1 && !fg) || admin ? LOG_TO_SYSLOG : LOG_TO_STDERR);
	log_set_debug(debug);
	/* The file is read once, with the list sections, [cluster] and
	 * the delivery sections.  Listing, checking and the operator's commands
	 * need no delivery sections: without their part they are accepted
	 * unchecked, so a broken one does not stop them. */
	delivery_conf_init(&dc);
	parts[0] = lists_settings_part(&ls);
	parts[1] = cluster_settings_part(&cs);
	parts[2] = delivery_conf_part(&dc);
	if (settings_load(&s, parts, list || check || admin ? 2 : 3,
		config ? config : SETTINGS_DEFAULT_FILE, config == NULL, err,
		sizeof(err)) == -1 ||
	    (!list && !check && !admin &&
		delivery_conf_finish(&dc, err, sizeof(err)) == -1)) {
		log_errx("%s", err);
		delivery_conf_free(&dc);
		return EX_CONFIG;
	}
	if (list)
		return qr_list(&s);
	if (admin)
		return queuectl_admin(&s, op, target, stdout);
	if (check)
		return qr_check(&s);
	if ((q = queuerun_open(&s, &ls, &cs, &dc, err, sizeof(err))) == NULL) {
		log_errx("%s", err);
		delivery_conf_free(&dc);
		return EX_CONFIG;
	}
	if (once)
		r = qr_once(q);
	else
		r = runner_link_serve(q, &s, &o);
	queuerun_close(q);
	delivery_conf_free(&dc);
	return r;
}
