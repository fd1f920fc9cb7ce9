/*
 * schedsim_main.c - mj_schedsim: run the real scheduler in virtual time.
 *
 *   mj_schedsim -s < scenario   job name of every selected entry, in order
 *   mj_schedsim -c < scenario   per destination: deliveries, deferred %,
 *                               average and stddev of the window
 *   mj_schedsim -t < scenario   timed trace: one line per event
 *   mj_schedsim -b < scenario   like -s, but print timing and memory
 *
 *   -w W1,W2,...  the mail leaves from N source addresses s1..sN, picked
 *                 per recipient by weight as the runner picks a sending
 *                 pool's addresses: each destination D is one per source
 *                 ("sI->D", spool_dest_name), with D's settings unless
 *                 the scenario names "sI->D" itself
 *
 * In -s and -b mode deliveries complete at once and the clock stays at the
 * start.  In -c and -t mode each delivery takes its destination's
 * delivery_time; a session beyond the server_limit, or while the server is
 * down, is refused at once (421: a handshake failure); every entry is tried
 * once, and a deferred one is counted, not retried.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "schedsim.h"
#include "spool_dest_name.h"

enum sim_mode { MODE_SEQ, MODE_CONC, MODE_TRACE, MODE_BENCH };

/* Source addresses (-w): the weights, and each one's credit in the
 * smooth weighted round robin the runner uses (source_pick.c). */
#define SIM_SOURCES_MAX 64

struct sim_sources {
	int n;
	int weight[SIM_SOURCES_MAX];
	long credit[SIM_SOURCES_MAX];
};

struct sim_run {
	struct sim *sim;
	struct sim_sources src;
	struct sched *s;
	enum sim_mode mode;
	char **names; /* sequence output, -s */
	size_t nnames, cap;
	int one_char; /* every job name is one character */
	long selections;
	struct sim_event *ev; /* min-heap of delivery completions */
	size_t nev, evcap;
	unsigned long seq;
};

struct sim_event {
	double at;
	unsigned long seq; /* ties end in start order */
	struct sched_entry *e;
	struct sim_dest *d;
	struct sim_job *job;
};

/* sim_fatal - print a diagnostic and exit */

static void __attribute__((noreturn, format(printf, 2, 3)))
sim_fatal(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", getprogname());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* sim_source - the next source by weight (smooth weighted round
 * robin), and dest's name from it, "sI->dest", in buf */

static const char *
sim_source(struct sim_sources *src, const char *dest, char *buf, size_t len)
{
	char name[16];
	long total = 0;
	int i, best = 0;

	for (i = 0; i < src->n; i++) {
		src->credit[i] += src->weight[i];
		total += src->weight[i];
		if (src->credit[i] > src->credit[best])
			best = i;
	}
	src->credit[best] -= total;
	snprintf(name, sizeof(name), "s%d", best + 1);
	if (spool_dest_name(buf, len, dest, name) == -1)
		sim_fatal(70, "destination name too long: %s", dest);
	return buf;
}

/* sim_sources_arg - -w W1,W2,...: the weights of the sources */

static void
sim_sources_arg(struct sim_sources *src, const char *arg)
{
	const char *p = arg;
	char *end;
	long w;

	memset(src, 0, sizeof(*src));
	for (;;) {
		w = strtol(p, &end, 10);
		if (end == p || w < 1 || w > 1000 || src->n == SIM_SOURCES_MAX)
			sim_fatal(64,
			    "-w: want weights 1-1000, comma-separated, "
			    "at most %d: %s",
			    SIM_SOURCES_MAX, arg);
		src->weight[src->n++] = (int)w;
		if (*end == '\0')
			return;
		if (*end != ',')
			sim_fatal(
			    64, "-w: want weights, comma-separated: %s", arg);
		p = end + 1;
	}
}

/* sim_refill - the scheduler's refill callback: hand out recipients */

static long
sim_refill(void *arg, struct sched_msg *msg, void *ctx, long max)
{
	struct sim_run *run = arg;
	struct sim_job *j = ctx;
	const char *transport = j->transport ? j->transport : SIM_TRANSPORT;
	char name[300], named[320];
	const char *dest;

	for (; max > 0 && j->next < j->rcpts; max--, j->next++) {
		if (j->dest != NULL) {
			dest = j->dest;
		} else {
			/* Shared pool d0..dN-1, or one per recipient. */
			if (j->destinations > 0)
				snprintf(name, sizeof(name), "d%ld",
				    (long)(((unsigned long)(j -
							    run->sim->jobs) *
						   7919UL +
					       (unsigned long)j->next *
						   104729UL) %
					   (unsigned long)j->destinations));
			else
				snprintf(name, sizeof(name), "%s.%ld", j->name,
				    j->next);
			dest = name;
		}
		if (run->src.n > 0)
			dest =
			    sim_source(&run->src, dest, named, sizeof(named));
		if (sched_rcpt_add(
			run->s, msg, transport, dest, (uint32_t)j->next) == -1)
			sim_fatal(70, "cannot add recipient %ld of job %s",
			    j->next, j->name);
	}
	return j->rcpts - j->next;
}

/* sim_log - the scheduler's debug callback: to stderr */

static void
sim_log(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

/* sim_arrive - jobs queued up to `until` enter the scheduler at `now` */

static void
sim_arrive(struct sim_run *run, double until, double now)
{
	struct sim *sim = run->sim;
	struct sim_job *j;
	size_t i;

	for (i = 0; i < sim->njobs; i++) {
		j = &sim->jobs[i];
		if (j->arrived || j->queued > until)
			continue;
		j->arrived = 1;
		if (sched_msg_add(run->s, j, j->queued, j->rcpts, now) == NULL)
			sim_fatal(71, "cannot add job %s", j->name);
	}
}

/* sim_next_arrival - queued time of the next job to arrive, or HUGE_VAL */

static double
sim_next_arrival(const struct sim *sim)
{
	double next = HUGE_VAL;
	size_t i;

	for (i = 0; i < sim->njobs; i++)
		if (!sim->jobs[i].arrived && sim->jobs[i].queued < next)
			next = sim->jobs[i].queued;
	return next;
}

/* sim_transport_name - the i-th transport name mentioned, or NULL */

static const char *
sim_transport_name(const struct sim *sim, size_t i)
{
	if (i == 0)
		return SIM_TRANSPORT;
	if (i <= sim->njobs)
		return sim->jobs[i - 1].transport;
	return sim->kv[i - 1 - sim->njobs].transport;
}

/* sim_transport_add - a transport with its [transport:NAME] overrides */

static void
sim_transport_add(struct sim_run *run, size_t idx)
{
	struct sim *sim = run->sim;
	const char *name = sim_transport_name(sim, idx), *seen;
	struct sched_params tp;
	char why[200];
	size_t i;

	if (name == NULL)
		return;
	for (i = 0; i < idx; i++)
		if ((seen = sim_transport_name(sim, i)) != NULL &&
		    strcmp(seen, name) == 0)
			return;
	tp = sim->p;
	for (i = 0; i < sim->nkv; i++)
		if (strcmp(sim->kv[i].transport, name) == 0 &&
		    sched_params_set(&tp, sim->kv[i].key, sim->kv[i].value, why,
			sizeof(why)) != 0)
			sim_fatal(65, "%s: %s", sim->kv[i].key, why);
	if (sched_core_transport(run->s, name, &tp) == -1)
		sim_fatal(71, "cannot add transport %s", name);
}

/* sim_setup - the scheduler with its transports, limits and jobs */

static void
sim_setup(struct sim_run *run, double now)
{
	struct sim *sim = run->sim;
	struct sched_callbacks cb = {
	    .refill = sim_refill, .log = sim_log, .arg = run};
	size_t i;

	if ((run->s = sched_core_create(&sim->p, &cb)) == NULL)
		sim_fatal(71, "out of memory");
	for (i = 0; i <= sim->njobs + sim->nkv; i++)
		sim_transport_add(run, i);
	for (i = 0; i < sim->ndests; i++)
		if (sim->dests[i].concurrency_limit > 0 &&
		    sched_dest_limit(run->s, SIM_TRANSPORT, sim->dests[i].name,
			sim->dests[i].concurrency_limit) == -1)
			sim_fatal(71, "out of memory");
	run->one_char = 1;
	for (i = 0; i < sim->njobs; i++)
		if (strlen(sim->jobs[i].name) != 1)
			run->one_char = 0;
	sim_arrive(run,
	    run->mode == MODE_SEQ || run->mode == MODE_BENCH ? HUGE_VAL : now,
	    now);
}

/* sim_event_push - a delivery that ends at a given time */

static void
sim_event_push(struct sim_run *run, struct sim_event ev)
{
	struct sim_event *h, tmp;
	size_t i, up;

	if (run->nev == run->evcap) {
		run->evcap = run->evcap ? run->evcap * 2 : 64;
		if ((h = reallocarray(run->ev, run->evcap, sizeof(*h))) == NULL)
			sim_fatal(71, "out of memory");
		run->ev = h;
	}
	ev.seq = run->seq++;
	h = run->ev;
	h[i = run->nev++] = ev;
	for (; i > 0; i = up) {
		up = (i - 1) / 2;
		if (h[up].at < h[i].at ||
		    (h[up].at == h[i].at && h[up].seq < h[i].seq))
			break;
		tmp = h[up];
		h[up] = h[i];
		h[i] = tmp;
	}
}

/* sim_event_before - heap order: earlier time, then earlier start */

static int
sim_event_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

/* sim_event_pop - the earliest delivery completion */

static struct sim_event
sim_event_pop(struct sim_run *run)
{
	struct sim_event *h = run->ev, top = h[0], tmp;
	size_t i = 0, c;

	h[0] = h[--run->nev];
	while ((c = 2 * i + 1) < run->nev) {
		if (c + 1 < run->nev && sim_event_before(&h[c + 1], &h[c]))
			c++;
		if (!sim_event_before(&h[c], &h[i]))
			break;
		tmp = h[c];
		h[c] = h[i];
		h[i] = tmp;
		i = c;
	}
	return top;
}

/* sim_seq_add - remember a job name for the -s output line */

static void
sim_seq_add(struct sim_run *run, struct sim_job *j)
{
	char **n;

	if (run->nnames == run->cap) {
		run->cap = run->cap ? run->cap * 2 : 256;
		if ((n = reallocarray(run->names, run->cap, sizeof(*n))) ==
		    NULL)
			sim_fatal(71, "out of memory");
		run->names = n;
	}
	run->names[run->nnames++] = j->name;
}

/* sim_done - report an outcome; -t traces it */

static void
sim_done(struct sim_run *run, struct sched_entry *e, struct sim_job *j,
    enum sched_outcome out, double now, const char *what)
{
	const char *dest = sched_entry_nexthop(e);
	struct sched_dest_state st;

	if (run->mode == MODE_TRACE) {
		printf("%g %s %s %s", now, what, j->name, dest);
		sched_core_done(run->s, e, out, now, &st);
		printf(" window=%d busy=%d%s\n", st.ds.window, st.busy,
		    st.ds.dead ? " dead" : "");
		return;
	}
	sched_core_done(run->s, e, out, now, NULL);
}

/* sim_start - one selected entry in the timed modes */

static void
sim_start(struct sim_run *run, struct sched_entry *e, enum sched_action act,
    double now)
{
	struct sim_job *j = sched_entry_msg_ctx(e);
	const char *name = sched_entry_nexthop(e);
	struct sim_dest *d = schedsim_scen_dest(run->sim, name);
	struct sched_dest_state st;
	struct sim_event ev;

	if (d != NULL)
		d->deliveries++;
	if (act == SCHED_DEFER) {
		if (d != NULL)
			d->deferred++;
		sim_done(run, e, j, SCHED_OK, now, "defer");
		return;
	}
	if (sched_dest_state(run->s, sched_entry_transport(e), name, &st) ==
		0 &&
	    d != NULL) {
		d->wsum += st.ds.window;
		d->wsq += (double)st.ds.window * st.ds.window;
		d->wn++;
	}
	if (run->mode == MODE_TRACE)
		printf("%g select %s %s window=%d busy=%d\n", now, j->name,
		    name, st.ds.window, st.busy - 1);
	if (d != NULL &&
	    ((d->server_limit > 0 && d->sessions >= d->server_limit) ||
		(now >= d->down_from && now < d->down_until))) {
		d->deferred++;
		sim_done(run, e, j, SCHED_CONN_FAIL, now, "refused");
		return;
	}
	if (d != NULL)
		d->sessions++;
	ev.at = now + (d != NULL ? d->delivery_time : 1);
	ev.e = e;
	ev.d = d;
	ev.job = j;
	sim_event_push(run, ev);
}

/* sim_timed - the -c and -t engine: events in virtual time */

static void
sim_timed(struct sim_run *run)
{
	double now = run->sim->start, wake, next;
	struct sched_entry *e;
	enum sched_action act;
	struct sim_event ev;

	sim_setup(run, now);
	for (;;) {
		while ((e = sched_core_select(run->s, now, &act)) != NULL) {
			run->selections++;
			sim_start(run, e, act, now);
		}
		/* The next thing to happen: a completion, wakeup or arrival. */
		next = sim_next_arrival(run->sim);
		if ((wake = sched_core_wakeup(run->s)) > now && wake < next)
			next = wake;
		if (run->nev > 0 && run->ev[0].at <= next) {
			ev = sim_event_pop(run);
			now = ev.at;
			if (ev.d != NULL)
				ev.d->sessions--;
			sim_done(run, ev.e, ev.job, SCHED_OK, now, "ok");
		} else if (next < HUGE_VAL) {
			now = next;
			sim_arrive(run, now, now);
		} else {
			break;
		}
	}
}

/* sim_instant - the -s and -b engine: deliveries complete at once */

static void
sim_instant(struct sim_run *run)
{
	double now = run->sim->start;
	struct sched_entry *e;
	enum sched_action act;

	sim_setup(run, now);
	while ((e = sched_core_select(run->s, now, &act)) != NULL) {
		run->selections++;
		if (run->mode == MODE_SEQ)
			sim_seq_add(run, sched_entry_msg_ctx(e));
		sched_core_done(run->s, e, SCHED_OK, now, NULL);
	}
}

/* sim_print_seq - the -s line */

static void
sim_print_seq(const struct sim_run *run)
{
	size_t i;

	for (i = 0; i < run->nnames; i++) {
		if (i > 0 && !run->one_char)
			putchar(' ');
		fputs(run->names[i], stdout);
	}
	putchar('\n');
}

/* sim_print_conc - the -c lines, in order of first mention */

static void
sim_print_conc(const struct sim_run *run)
{
	const struct sim_dest *d;
	double avg, var;
	size_t i;

	for (i = 0; i < run->sim->ndests; i++) {
		d = &run->sim->dests[i];
		avg = d->wn ? d->wsum / d->wn : 0;
		var = d->wn ? d->wsq / d->wn - avg * avg : 0;
		printf("destination=%s deliveries=%ld deferred_pct=%.1f "
		       "avg_concurrency=%.2f stddev=%.2f\n",
		    d->name, d->deliveries,
		    d->deliveries ? 100.0 * d->deferred / d->deliveries : 0.0,
		    avg, var > 0 ? sqrt(var) : 0.0);
	}
}

/* sim_print_bench - the -b line: speed and memory */

static void
sim_print_bench(const struct sim_run *run, double secs)
{
	size_t mem_peak;
	long rcpt_peak;

	sched_core_memory(run->s, &mem_peak);
	sched_core_rcpts(run->s, &rcpt_peak);
	printf("selections=%ld ns_per_selection=%.1f peak_rcpts=%ld "
	       "peak_bytes=%zu bytes_per_rcpt=%.1f\n",
	    run->selections,
	    run->selections ? secs * 1e9 / run->selections : 0.0, rcpt_peak,
	    mem_peak, rcpt_peak ? (double)mem_peak / rcpt_peak : 0.0);
}

/* usage - say how to call it */

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: %s -s|-c|-t|-b [-w W1,W2,...] < scenario.ini\n",
	    getprogname());
	exit(64);
}

int
main(int argc, char **argv)
{
	struct sim sim;
	struct sim_run run;
	struct timespec t0, t1;
	int ch, line;

	memset(&run, 0, sizeof(run));
	run.mode = -1;
	while ((ch = getopt(argc, argv, "sctbw:")) != -1) {
		if (ch == 'w') {
			sim_sources_arg(&run.src, optarg);
			continue;
		}
		if ((int)run.mode != -1)
			usage();
		run.mode = ch == 's'   ? MODE_SEQ
			   : ch == 'c' ? MODE_CONC
			   : ch == 't' ? MODE_TRACE
			   : ch == 'b' ? MODE_BENCH
				       : (usage(), MODE_SEQ);
	}
	if ((int)run.mode == -1 || optind != argc)
		usage();
	if (schedsim_scen_read(&sim, stdin, &line) == -1) {
		if (line > 0)
			sim_fatal(65, "line %d: %s", line, sim.err);
		sim_fatal(65, "%s", sim.err);
	}
	if (run.src.n > 0 && schedsim_scen_sources(&sim, run.src.n) == -1)
		sim_fatal(65, "%s", sim.err);
	run.sim = &sim;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (run.mode == MODE_SEQ || run.mode == MODE_BENCH)
		sim_instant(&run);
	else
		sim_timed(&run);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (run.mode == MODE_SEQ)
		sim_print_seq(&run);
	else if (run.mode == MODE_CONC)
		sim_print_conc(&run);
	else if (run.mode == MODE_BENCH)
		sim_print_bench(&run, (double)(t1.tv_sec - t0.tv_sec) +
					  (t1.tv_nsec - t0.tv_nsec) / 1e9);
	sched_core_free(run.s);
	free(run.names);
	free(run.ev);
	schedsim_scen_free(&sim);
	if (fflush(stdout) == EOF || ferror(stdout))
		sim_fatal(74, "cannot write the output");
	return 0;
}
