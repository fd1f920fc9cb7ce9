/*
 * runner_link.c - the runner's main loop when mj_queueserv runs it: the
 * protocol of runner_link.h around the delivery work of queuerun.h.
 *
 * One poll over the server's socketpair, the delivery's event fd and a
 * self-pipe for SIGTERM; after every wake-up one queuerun_step(), whose
 * timeout bounds the next sleep together with the next beat and the
 * idle deadline.  Nothing here blocks: the server's end is written with
 * MSG_DONTWAIT (a line that does not fit is dropped; the next beat
 * carries the news), and the delivery is non-blocking by contract.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "runner_link.h"

#define LINK_LINE_MAX 256
#define LINK_INHAND_MS 100 /* the least time between two beats for in-hand */

struct link {
	struct queuerun *q;
	const struct settings *s;
	int fd;
	char in[LINK_LINE_MAX];
	size_t inlen;
	int draining;
	long long abandon_at; /* draining: leave the batches in flight then */
	int keep;	      /* no idle exit */
	const char *bye;      /* why we leave */
	int walk_asked;	      /* a run or rescan since the last step */
	int was_idle;	      /* as told in the last beat; -1 before any */
	int told_inhand;      /* as told in the last beat */
	long long next_beat, last_beat, idle_since;
};

static volatile sig_atomic_t link_got_term;
static int link_sig_w = -1;

/* link_on_term - note SIGTERM and wake the loop */
static void
link_on_term(int sig)
{
	int saved = errno;

	(void)sig;
	link_got_term = 1;
	if (write(link_sig_w, "", 1) == -1) {
		/* A full pipe already wakes the loop. */
	}
	errno = saved;
}

/* link_signals - SIGTERM/SIGINT through a self-pipe; its read end */
static int
link_signals(void)
{
	struct sigaction sa;
	int p[2];

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1)
		return -1;
	link_sig_w = p[1];
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = link_on_term;
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	return p[0];
}

/* runner_link_beat_ms - how often a runner says it is alive */
static long long
runner_link_beat_ms(const struct settings *s)
{
	long long ms = s->queueserv_runner_hang_timeout * 1000 / 4;

	if (ms < 100)
		ms = 100;
	if (ms > 30000)
		ms = 30000;
	return ms;
}

/* link_send - one line to the server, never blocking */
static void link_send(struct link *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
link_send(struct link *l, const char *fmt, ...)
{
	char buf[LINK_LINE_MAX];
	va_list ap;
	int n;

	if (l->fd == -1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf) - 1)
		return;
	buf[n++] = '\n';
	if (send(l->fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n)
		log_debug("cannot tell the server: %.*s", n - 1, buf);
}

/* link_beat - tell the server how we are */
static void
link_beat(struct link *l, int idle)
{
	link_send(l, "beat %s %d %ld", idle ? "idle" : "busy",
	    queuerun_busy(l->q), queuerun_done(l->q));
	l->was_idle = idle;
	l->told_inhand = queuerun_busy(l->q);
	l->last_beat = clock_ms();
	l->next_beat = l->last_beat + runner_link_beat_ms(l->s);
}

/* link_drain - stop taking work; leave once nothing is in hand */
static void
link_drain(struct link *l, const char *why)
{
	if (l->draining)
		return;
	l->draining = 1;
	l->bye = why;
	/* Out before the server's kill at shutdown_timeout: a kill would
	 * leave the messages in hand marked active, as a crash does. */
	l->abandon_at = clock_ms() + l->s->queueserv_shutdown_timeout * 800;
	queuerun_drain(l->q);
	log_debug("draining (%s)", why);
}

/* link_line - one line from the server */
static void
link_line(struct link *l, const char *line)
{
	if (strncmp(line, "time ", 5) == 0) {
		/* The handshake: only an idle runner echoes it. */
		if (!l->draining && !l->walk_asked && queuerun_idle(l->q))
			link_send(l, "%s", line);
		else
			link_send(l, "busy %s", line);
	} else if (strcmp(line, "run") == 0 || strcmp(line, "rescan") == 0) {
		if (l->draining)
			return;
		queuerun_rescan(l->q);
		l->walk_asked = 1;
		l->idle_since = 0;
		/* The acknowledgement goes out before the walk starts: a poke
		 * the server takes after reading it gets a rescan of its own,
		 * one it took before is for mail this walk will see. */
		link_beat(l, 0);
	} else {
		log_warnx("unknown line from the server: \"%.40s\"", line);
	}
}

/* link_input - read the server's lines; its end closed means drain */
static void
link_input(struct link *l)
{
	ssize_t n;
	char *nl, *p;

	for (;;) {
		n = read(l->fd, l->in + l->inlen, sizeof(l->in) - 1 - l->inlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			close(l->fd);
			l->fd = -1;
			link_drain(l, "server gone");
			return;
		}
		l->inlen += (size_t)n;
		l->in[l->inlen] = '\0';
		p = l->in;
		while ((nl = strchr(p, '\n')) != NULL) {
			*nl = '\0';
			link_line(l, p);
			p = nl + 1;
		}
		l->inlen -= (size_t)(p - l->in);
		memmove(l->in, p, l->inlen);
		if (l->inlen == sizeof(l->in) - 1)
			l->inlen = 0;
	}
}

/* link_log_walk - when a walk was asked for and starts (the figure
 * "poke to walk" is measured from these lines) */
static void
link_log_walk(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	log_debug(
	    "walk start %lld.%06ld", (long long)tv.tv_sec, (long)tv.tv_usec);
}

/* link_after_step - beats, the session limit, idle exit; 1 to leave */
static int
link_after_step(struct link *l, long long now)
{
	int idle = queuerun_idle(l->q) && !l->walk_asked;

	if (queuerun_done(l->q) >= l->s->queueserv_runner_max_messages &&
	    !l->draining) {
		log_info("%ld messages done: leaving for a fresh runner",
		    queuerun_done(l->q));
		link_drain(l, "limit");
	}
	if (l->draining) {
		if (queuerun_inflight(l->q) == 0)
			return 1;
		if (now < l->abandon_at)
			return 0;
		queuerun_abandon(l->q);
		return 1;
	}
	/* The messages in hand change often under load: at most ten
	 * beats a second say so. */
	if (idle != l->was_idle || now >= l->next_beat ||
	    (queuerun_busy(l->q) != l->told_inhand &&
		now - l->last_beat >= LINK_INHAND_MS))
		link_beat(l, idle);
	if (!idle) {
		l->idle_since = 0;
		return 0;
	}
	if (l->idle_since == 0)
		l->idle_since = now;
	if (!l->keep && l->fd != -1 &&
	    now - l->idle_since >= l->s->queueserv_runner_idle_timeout * 1000) {
		l->bye = "idle";
		return 1;
	}
	return 0;
}

/* link_sleep - how long poll may wait */
static int
link_sleep(const struct link *l, int step_ms, long long now)
{
	long long d = step_ms < 0 ? 60000 : step_ms, x;

	if ((x = l->next_beat - now) < d)
		d = x;
	/* A change of the messages in hand is told within LINK_INHAND_MS,
	 * not at the next regular beat (up to 30 s away). */
	if (queuerun_busy(l->q) != l->told_inhand &&
	    (x = l->last_beat + LINK_INHAND_MS - now) < d)
		d = x;
	if (l->draining && (x = l->abandon_at - now) < d)
		d = x;
	if (!l->keep && l->idle_since != 0 &&
	    (x = l->idle_since + l->s->queueserv_runner_idle_timeout * 1000 -
		 now) < d)
		d = x;
	return d < 0 ? 0 : (int)d;
}

/* runner_link_serve - the loop; the runner's exit code */
int
runner_link_serve(struct queuerun *q, const struct settings *s,
    const struct runner_link_opts *o)
{
	struct link l;
	struct pollfd pfd[3];
	int sig_fd, step_ms = 0, r = 0;
	long long now;
	char buf[16];

	memset(&l, 0, sizeof(l));
	l.q = q;
	l.s = s;
	l.fd = o->fd;
	l.keep = o->keep;
	l.was_idle = -1;
	l.bye = "error";
	if ((sig_fd = link_signals()) == -1 ||
	    fcntl(l.fd, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(l.fd, F_SETFD, FD_CLOEXEC) == -1) {
		log_err("cannot set up the link");
		return 1;
	}
	/* If the server dies, the closed socketpair tells us; this is for
	 * a runner deep in a step when that happens. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		link_drain(&l, "server gone");
	link_send(&l, "hello %ld", (long)getpid());
	/* A new runner always walks the whole spool once. */
	queuerun_rescan(q);
	l.walk_asked = 1;
	for (;;) {
		if (l.walk_asked)
			link_log_walk();
		if (queuerun_step(q, &step_ms) == -1) {
			log_errx("delivery failed; leaving");
			l.bye = "error";
			r = 1;
			break;
		}
		l.walk_asked = 0;
		now = clock_ms();
		if (link_after_step(&l, now))
			break;
		pfd[0] = (struct pollfd){l.fd, POLLIN, 0};
		pfd[1] = (struct pollfd){queuerun_event_fd(q), POLLIN, 0};
		pfd[2] = (struct pollfd){sig_fd, POLLIN, 0};
		if (poll(pfd, 3, link_sleep(&l, step_ms, now)) == -1 &&
		    errno != EINTR) {
			log_err("poll");
			r = 1;
			break;
		}
		if (pfd[2].revents || link_got_term) {
			while (read(sig_fd, buf, sizeof(buf)) > 0)
				;
			link_got_term = 0;
			link_drain(&l, "drain");
		}
		if (l.fd != -1 && pfd[0].revents)
			link_input(&l);
	}
	link_send(&l, "bye %s", l.bye);
	log_debug("leaving (%s), %ld messages done", l.bye, queuerun_done(q));
	if (l.fd != -1)
		close(l.fd);
	return r;
}
