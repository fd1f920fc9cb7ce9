/*
 * mj_queueserv - keep a bounded pool of mj_queuerun runners busy with
 * the spool, poked through queueserv.sock.
 *
 *   mj_queueserv [-df] [-C file]                  run the server
 *   mj_queueserv [-C file] status [-j|-p] | stop | reload | flush
 *   mj_queueserv [-C file] disabled [list@domain]
 *
 * Start-up, in order: close inherited descriptors, read the config,
 * create or check the spool tree, take the pidfile (one server per
 * spool), bind the socket (removing a stale one), drop to [queueserv]
 * user when root, daemonize unless -f.  Then one poll loop: signals
 * arrive through a self-pipe, clients through the listener, runners
 * through their socketpairs; every pass ends with a pool tick.  What
 * the other files return for the server to do (a stop or reload asked
 * on the socket, a reaped child) is done here: none of them calls back.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libutil.h>
#include <limits.h>
#include <paths.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "names.h"
#include "queueserv.h"
#include "spool_dest.h"
#include "spool_path.h"
#include "spool_tree.h"

#define QS_SWEEP_MAX 3600 /* sweep tmp/ at least hourly */

static volatile sig_atomic_t got_term, got_hup, got_chld;
static int sig_pipe_w = -1;

/* qs_on_signal - note the signal and wake the loop; nothing else */
static void
qs_on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGTERM || sig == SIGINT)
		got_term = 1;
	else if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGCHLD)
		got_chld = 1;
	if (write(sig_pipe_w, "", 1) == -1) {
		/* A full pipe already wakes the loop. */
	}
	errno = saved;
}

/* qs_signals - the self-pipe and the handlers */
static int
qs_signals(struct qs *qs)
{
	struct sigaction sa;
	int p[2];

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1)
		return -1;
	qs->sig_fd = p[0];
	sig_pipe_w = p[1];
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = qs_on_signal;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1 ||
	    sigaction(SIGHUP, &sa, NULL) == -1 ||
	    sigaction(SIGCHLD, &sa, NULL) == -1)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* qs_usage - the synopsis, then EX_USAGE */
static int
qs_usage(void)
{
	fprintf(stderr, "usage: mj_queueserv [-df] [-C file]\n"
			"       mj_queueserv [-C file] status [-j|-p] | stop | "
			"reload | flush\n"
			"       mj_queueserv [-C file] disabled "
			"[list@domain]\n");
	return EX_USAGE;
}

/* qs_load - read the configuration into s, ls and cs; the spool made
 * absolute */
static int
qs_load(const struct qs *qs, struct settings *s, struct lists_settings *ls,
    struct cluster_settings *cs, char *err, size_t errlen)
{
	struct settings_part parts[2];
	char real[PATH_MAX];

	parts[0] = lists_settings_part(ls);
	parts[1] = cluster_settings_part(cs);
	if (settings_load(s, parts, 2,
		qs->config[0] ? qs->config : SETTINGS_DEFAULT_FILE,
		qs->config[0] == '\0', err, errlen) == -1)
		return -1;
	if (realpath(s->spool_dir, real) != NULL &&
	    strlcpy(s->spool_dir, real, sizeof(s->spool_dir)) >=
		sizeof(s->spool_dir)) {
		snprintf(err, errlen, "spool path too long: %.200s", real);
		return -1;
	}
	return 0;
}

/* qs_stop - stop accepting; the pool drains the runners */
static void
qs_stop(struct qs *qs, const char *why)
{
	if (qs->stopping)
		return;
	log_notice("stopping (%s)", why);
	qs->stopping = 1;
	queueserv_listen_close(qs, 1);
}

/* qs_reload - read the configuration again and replace the runners
 * gracefully; the old settings stay if the new ones are bad */
static int
qs_reload(struct qs *qs, char *err, size_t errlen)
{
	struct lists_settings nls;
	struct cluster_settings ncs;
	struct settings ns;
	struct client *nc;

	if (qs->stopping) {
		snprintf(err, errlen, "stopping");
		return -1;
	}
	if (qs_load(qs, &ns, &nls, &ncs, err, errlen) == -1) {
		log_warnx("reload: %s; keeping the running configuration", err);
		return -1;
	}
	if (strcmp(ns.spool_dir, qs->s.spool_dir) != 0) {
		log_warnx("reload: a new spool dir needs a restart; keeping %s",
		    qs->s.spool_dir);
		memcpy(ns.spool_dir, qs->s.spool_dir, sizeof(ns.spool_dir));
	}
	qs->s = ns;
	qs->ls = nls;
	qs->cs = ncs;
	if (queueserv_runner_find(qs, err, errlen) == -1) {
		log_warnx("reload: %s", err);
		return -1;
	}
	if ((size_t)ns.queueserv_max_clients > qs->maxclients &&
	    (nc = reallocarray(qs->clients, (size_t)ns.queueserv_max_clients,
		 sizeof(*nc))) != NULL) {
		qs->clients = nc;
		qs->maxclients = (size_t)ns.queueserv_max_clients;
	}
	if (queueserv_pool_resize(qs) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	queueserv_listen_perms(qs);
	qs->next_timer_run = clock_ms() + ns.queueserv_queue_run_delay * 1000;
	qs->reloading = 1;
	log_notice("reloaded %s; replacing the runners",
	    qs->config[0] ? qs->config : SETTINGS_DEFAULT_FILE);
	return 0;
}

/* qs_drop_privileges - as root, become [queueserv] user; the spool's
 * top directories and the socket become theirs first */
static int
qs_drop_privileges(struct qs *qs)
{
	const char *user = qs->s.queueserv_user;
	char path[PATH_MAX];
	struct passwd *pw;
	struct stat st;
	size_t i;
	int r;

	if (geteuid() != 0 || user[0] == '\0')
		return 0;
	if ((pw = getpwnam(user)) == NULL) {
		fprintf(stderr, "mj_queueserv: user %s: no such user\n", user);
		return -1;
	}
	for (i = 0;
	     (r = spool_top_path(path, sizeof(path), qs->s.spool_dir, i)) != 1;
	     i++) {
		if (r == -1 || lstat(path, &st) == -1 ||
		    st.st_uid == pw->pw_uid)
			continue;
		if (chown(path, pw->pw_uid, pw->pw_gid) == -1)
			fprintf(stderr, "mj_queueserv: chown %s: %s\n", path,
			    strerror(errno));
	}
	if (chown(qs->sock_path, pw->pw_uid, (gid_t)-1) == -1 ||
	    initgroups(user, pw->pw_gid) == -1 || setgid(pw->pw_gid) == -1 ||
	    setuid(pw->pw_uid) == -1) {
		fprintf(stderr, "mj_queueserv: cannot become %s: %s\n", user,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* qs_pidfile_write - our pid into the pidfile we hold.  libbsd's
 * pidfile_write, when the write fails (a full spool), removes the file,
 * drops its lock and leaves a handle pidfile_remove will not free; here
 * the file stays, empty but locked, so one server per spool still holds
 * and the handle is freed at exit as usual. */
static int
qs_pidfile_write(struct pidfh *pfh)
{
	char pid[32];
	ssize_t w;
	int fd, n;

	if ((fd = pidfile_fileno(pfh)) == -1 || ftruncate(fd, 0) == -1)
		return -1;
	n = snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if ((w = pwrite(fd, pid, (size_t)n, 0)) == n)
		return 0;
	if (w >= 0)
		errno = ENOSPC; /* a short write: no room for the rest */
	return -1;
}

/* qs_null_stdio - stdin and stdout on /dev/null (a daemon that keeps
 * its stderr for the log) */
static int
qs_null_stdio(void)
{
	int fd, r = 0;

	if ((fd = open(_PATH_DEVNULL, O_RDWR | O_CLOEXEC)) == -1)
		return -1;
	if (dup2(fd, STDIN_FILENO) == -1 || dup2(fd, STDOUT_FILENO) == -1)
		r = -1;
	close(fd);
	return r;
}

/* qs_keep_stderr - 1 when the daemon keeps the stderr it was started
 * with, for its log and its runners': only where no syslog daemon
 * listens, and not a pipe (whoever reads it, as $(...) does, would wait
 * for the daemon's end) */
static int
qs_keep_stderr(void)
{
	struct stat sb;

	if (log_syslog_reachable())
		return 0;
	if (fstat(STDERR_FILENO, &sb) == -1 || S_ISFIFO(sb.st_mode)) {
		fprintf(stderr,
		    "mj_queueserv: no syslog daemon listens on %s and stderr "
		    "is a pipe: the log is lost (run with -f, or send stderr "
		    "to a file)\n",
		    _PATH_LOG);
		return 0;
	}
	return 1;
}

/* qs_start - everything up to the loop; an exit code on failure */
static int
qs_start(struct qs *qs, struct pidfh **pfh)
{
	char path[PATH_MAX], err[512];
	pid_t other = 0;
	int keep;

	if (spool_tree_create(qs->s.spool_dir, path, sizeof(path)) == -1) {
		fprintf(stderr, "mj_queueserv: cannot create spool %s: %s\n",
		    path, strerror(errno));
		return EX_CANTCREAT;
	}
	if (queueserv_runner_find(qs, err, sizeof(err)) == -1) {
		fprintf(stderr, "mj_queueserv: %s\n", err);
		return EX_CONFIG;
	}
	if (spool_path(path, sizeof(path), qs->s.spool_dir, SPOOL_PIDFILE) ==
		-1 ||
	    (*pfh = pidfile_open(path, SPOOL_FILE_MODE, &other)) == NULL) {
		if (errno == EEXIST) {
			fprintf(stderr,
			    "mj_queueserv: already running for %s (pid %ld)\n",
			    qs->s.spool_dir, (long)other);
			return QS_EX_FAIL;
		}
		fprintf(stderr, "mj_queueserv: cannot open pidfile %s: %s\n",
		    path, strerror(errno));
		return EX_CANTCREAT;
	}
	if (queueserv_listen_open(qs, err, sizeof(err)) == -1) {
		fprintf(stderr, "mj_queueserv: %s\n", err);
		return QS_EX_FAIL;
	}
	if (qs_drop_privileges(qs) == -1)
		return EX_NOPERM;
	/* status counts deliveries from this start on */
	if (spool_dest_counts_reset(qs->s.spool_dir, (double)time(NULL)) == -1)
		fprintf(stderr,
		    "mj_queueserv: cannot reset the counts of "
		    "%s/%s: %s\n",
		    qs->s.spool_dir, SPOOL_DEST_FILE, strerror(errno));
	if (chdir("/") == -1)
		return EX_OSERR;
	if (!qs->foreground) {
		keep = qs_keep_stderr();
		if (daemon(0, keep) == -1) {
			fprintf(stderr, "mj_queueserv: daemon: %s\n",
			    strerror(errno));
			return EX_OSERR;
		}
		if (keep && qs_null_stdio() == -1)
			return EX_OSERR;
		if (log_open("mj_queueserv", LOG_TO_SYSLOG) == LOG_TO_STDERR)
			log_notice("no syslog daemon listens on %s: logging "
				   "to stderr",
			    _PATH_LOG);
	}
	if (qs_pidfile_write(*pfh) == -1)
		log_warn("cannot write pidfile");
	if (qs_signals(qs) == -1) {
		log_err("signals");
		return EX_OSERR;
	}
	return 0;
}

/* qs_timers - the periodic run and the sweeper */
static void
qs_timers(struct qs *qs, long long now)
{
	long long every;

	if (now >= qs->next_timer_run) {
		qs->want_run = 1;
		qs->next_timer_run =
		    now + qs->s.queueserv_queue_run_delay * 1000;
	}
	if (now >= qs->next_sweep) {
		queueserv_sweep(qs);
		every = qs->s.queueserv_tmp_max_age / 4;
		if (every > QS_SWEEP_MAX)
			every = QS_SWEEP_MAX;
		qs->next_sweep = now + every * 1000;
	}
}

/* qs_timeout - poll's timeout: the nearest deadline */
static int
qs_timeout(const struct qs *qs, long long now)
{
	long long d = qs->next_timer_run, x;

	if (qs->next_sweep < d)
		d = qs->next_sweep;
	if ((x = queueserv_listen_deadline(qs)) != -1 && x < d)
		d = x;
	if ((x = queueserv_pool_deadline(qs)) != -1 && x < d)
		d = x;
	if (d <= now)
		return 0;
	return d - now > 60000 ? 60000 : (int)(d - now);
}

/* qs_reap - every exited child to its owner: a runner's exit to the
 * pool; a helper to control, and a finished flush makes every busy
 * runner walk again */
static void
qs_reap(struct qs *qs)
{
	struct slot *sl;
	pid_t pid;

	while ((pid = queueserv_runner_reap(qs, &sl)) > 0) {
		if (sl != NULL)
			queueserv_pool_exited(qs, sl);
		else if (queueserv_control_reaped(qs, pid))
			queueserv_pool_rescan_all(qs);
	}
}

/* qs_signals_taken - act on what the handlers noted */
static void
qs_signals_taken(struct qs *qs)
{
	char buf[64], err[256];

	while (read(qs->sig_fd, buf, sizeof(buf)) > 0)
		;
	if (got_chld) {
		got_chld = 0;
		qs_reap(qs);
	}
	if (got_term) {
		got_term = 0;
		qs_stop(qs, "signal");
	}
	if (got_hup) {
		got_hup = 0;
		qs_reload(qs, err, sizeof(err));
	}
}

/* qs_client_events - what a client waits for: its request, room for
 * its reply, or (a held "stop" client) nothing but hang-up */
static short
qs_client_events(const struct client *c)
{
	if (!c->closing)
		return POLLIN;
	return c->outoff < c->outlen ? POLLOUT : 0;
}

/* qs_client - a client's events: its request read and acted on (a
 * stop or reload carried out here), its reply written */
static void
qs_client(struct qs *qs, struct client *c, short revents)
{
	char err[256];
	int r;

	switch (queueserv_listen_read(qs, c, revents)) {
	case QS_LISTEN_GONE:
		return;
	case QS_LISTEN_LINE:
		switch (queueserv_control(qs, c, c->in)) {
		case QS_ACT_STOP:
			qs_stop(qs, "stop request");
			break;
		case QS_ACT_RELOAD:
			r = qs_reload(qs, err, sizeof(err));
			queueserv_control_reloaded(c, r, err);
			break;
		case QS_ACT_NONE:
			break;
		}
		/* The client may have gone to a helper process. */
		if (c->fd == -1) {
			queueserv_listen_drop(qs, c);
			return;
		}
		break;
	}
	queueserv_listen_write(qs, c, revents);
}

/* qs_loop - poll, dispatch, tick; until stopped and every runner gone */
static void
qs_loop(struct qs *qs)
{
	struct pollfd *pfd = NULL, *np;
	size_t cap = 0, n, i, nc, ns;
	long long now;

	while (!qs->stopping || queueserv_pool_live(qs) > 0) {
		if (cap < 2 + qs->maxclients + qs->nslots) {
			cap = 2 + qs->maxclients + qs->nslots;
			if ((np = reallocarray(pfd, cap, sizeof(*pfd))) ==
			    NULL) {
				log_err("out of memory");
				sleep(1);
				continue;
			}
			pfd = np;
		}
		n = 0;
		pfd[n++] = (struct pollfd){qs->sig_fd, POLLIN, 0};
		pfd[n++] = (struct pollfd){
		    qs->nclients < qs->maxclients ? qs->listen_fd : -1, POLLIN,
		    0};
		nc = qs->nclients;
		for (i = 0; i < nc; i++)
			pfd[n++] = (struct pollfd){qs->clients[i].fd,
			    qs_client_events(&qs->clients[i]), 0};
		ns = qs->nslots;
		for (i = 0; i < ns; i++)
			pfd[n++] = (struct pollfd){qs->slots[i].fd, POLLIN, 0};
		if (poll(pfd, n, qs_timeout(qs, clock_ms())) == -1 &&
		    errno != EINTR) {
			log_err("poll");
			sleep(1);
		}
		/* Runners first (their exits free slots), clients from the
		 * end so that dropping one does not move an unseen one. */
		for (i = 0; i < ns; i++)
			if (pfd[2 + nc + i].revents)
				queueserv_pool_input(qs, &qs->slots[i]);
		for (i = nc; i > 0; i--)
			if (pfd[1 + i].revents && i - 1 < qs->nclients &&
			    qs->clients[i - 1].fd == pfd[1 + i].fd)
				qs_client(qs, &qs->clients[i - 1],
				    pfd[1 + i].revents);
		if (pfd[1].revents)
			queueserv_listen_accept(qs);
		if (pfd[0].revents || got_chld || got_term || got_hup)
			qs_signals_taken(qs);
		now = clock_ms();
		queueserv_listen_timeouts(qs, now);
		qs_timers(qs, now);
		queueserv_pool_tick(qs, now);
	}
	free(pfd);
}

int
main(int argc, char **argv)
{
	struct qs qs;
	struct pidfh *pfh = NULL;
	char err[512], req[32];
	int c, r, fd;

	/* Descriptor hygiene: nothing inherited but stdio, and stdio open. */
	closefrom(3);
	while ((fd = open("/dev/null", O_RDWR)) != -1 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
	setprogname("mj_queueserv");
	log_open("mj_queueserv", LOG_TO_STDERR);
	umask(027);
	memset(&qs, 0, sizeof(qs));
	qs.listen_fd = qs.sig_fd = -1;
	while ((c = getopt(argc, argv, "+C:dfh")) != -1) {
		switch (c) {
		case 'C':
			if (realpath(optarg, qs.config) == NULL) {
				fprintf(stderr, "mj_queueserv: %s: %s\n",
				    optarg, strerror(errno));
				return EX_CONFIG;
			}
			break;
		case 'd':
			qs.debug = 1;
			break;
		case 'f':
			qs.foreground = 1;
			break;
		default:
			return qs_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (qs_load(&qs, &qs.s, &qs.ls, &qs.cs, err, sizeof(err)) == -1) {
		fprintf(stderr, "mj_queueserv: %s\n", err);
		return EX_CONFIG;
	}
	log_set_debug(qs.debug);
	if (spool_path(qs.sock_path, sizeof(qs.sock_path), qs.s.spool_dir,
		SPOOL_SOCKET) == -1) {
		fprintf(stderr, "mj_queueserv: spool path too long\n");
		return EX_CONFIG;
	}
	if (argc > 0 && strcmp(argv[0], "disabled") == 0) {
		if (argc > 2 || (argc == 2 && !name_addr_ok(argv[1])))
			return qs_usage();
		return queueserv_lists_disabled(
		    &qs.s, argc == 2 ? argv[1] : NULL);
	}
	if (argc > 0) {
		if (strcmp(argv[0], "status") == 0 && argc == 2 &&
		    (strcmp(argv[1], "-j") == 0 ||
			strcmp(argv[1], "json") == 0))
			snprintf(req, sizeof(req), "status -j");
		else if (strcmp(argv[0], "status") == 0 && argc == 2 &&
			 strcmp(argv[1], "-p") == 0)
			snprintf(req, sizeof(req), "status -p");
		else if (argc == 1 && (strcmp(argv[0], "status") == 0 ||
					  strcmp(argv[0], "stop") == 0 ||
					  strcmp(argv[0], "reload") == 0 ||
					  strcmp(argv[0], "flush") == 0))
			(void)strlcpy(req, argv[0], sizeof(req));
		else
			return qs_usage();
		return queueserv_control_client(&qs, req);
	}
	qs.maxclients = (size_t)qs.s.queueserv_max_clients;
	if ((qs.clients = reallocarray(
		 NULL, qs.maxclients, sizeof(*qs.clients))) == NULL ||
	    queueserv_pool_resize(&qs) == -1) {
		fprintf(stderr, "mj_queueserv: out of memory\n");
		return EX_OSERR;
	}
	if ((r = qs_start(&qs, &pfh)) != 0) {
		if (pfh != NULL)
			pidfile_remove(pfh);
		free(qs.clients);
		free(qs.slots);
		return r;
	}
	qs.pid = getpid();
	qs.started = clock_ms();
	qs.started_wall = time(NULL);
	/* Mail may have come while no server ran: walk at once. */
	qs.want_run = 1;
	qs.next_timer_run = qs.started + qs.s.queueserv_queue_run_delay * 1000;
	qs.next_sweep = qs.started;
	log_notice("started for %s, runners %lld to %lld", qs.s.spool_dir,
	    qs.s.queueserv_min_runners, qs.s.queueserv_max_runners);
	qs_loop(&qs);
	queueserv_listen_close(&qs, 1);
	pidfile_remove(pfh);
	/* The clients' sockets, a held "stop" among them, stay open: the
	 * kernel closes them as the process ends, so "mj_queueserv stop"
	 * returns when the server is gone, not before its last log line
	 * and exit handlers (LeakSanitizer's check, under make SAN=1). */
	free(qs.clients);
	free(qs.slots);
	log_notice("stopped");
	return 0;
}
