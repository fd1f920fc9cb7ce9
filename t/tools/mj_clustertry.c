/*
 * mj_clustertry - drive libcluster (cluster/) against a real Redis from
 * the tests: the Lua scripts' leases, rate bucket and dead state, and
 * the fallback when Redis is gone.
 *
 * Runs its steps in order and prints one line per step:
 *     take KEY LIMIT INTERVAL  -> "go", "full W", "rate W", "dead W",
 *                                 "local" (W: seconds to wait, 0.001)
 *     done KEY OPEN            -> "done" (a delivery ended, OPEN sessions
 *                                 still open keep their leases)
 *     dead KEY SECS            -> "dead" (0: alive again)
 *     learn KEY REFUSED        -> "learnt" (the receiver refused REFUSED
 *                                 sessions: the cap, for 1 s)
 *     tick                     -> "tick" (renew, trim, reconnect)
 *     sleep SECS               -> "slept"
 *     state                    -> "shared", "fallback" or "off"
 *     hold                     -> "held", then sleeps until killed,
 *                                 leases kept (a node that dies)
 * The tag of every key is the key; open sessions for tick are 0.
 * Environment: MJQ_CLUSTER_NODE (node_name), MJQ_CLUSTER_LEASE
 * (lease_time), MJQ_CLUSTER_TLS_CA (tls = yes, tls_ca_file = its value;
 * empty: the system store).
 * Exit 0, or 64 for a bad step.
 */
#include <signal.h>
#include <sysexits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "cluster.h"
#include "log.h"

/* no_sessions - struct cluster_sessions' counts: this tool opens
 * none, and none is refused */
static int
no_sessions(const char *tag)
{
	(void)tag;
	return 0;
}

/* no_yield - struct cluster_sessions' yield: no session to close */
static int
no_yield(const char *tag, int max)
{
	(void)tag;
	(void)max;
	return 0;
}

/* no_pending - struct cluster_sessions' pending: nothing waits here */
static int
no_pending(void *arg, const char *tag)
{
	(void)arg;
	(void)tag;
	return 0;
}

/* step - one step at argv[0]; the arguments it used, or -1 */
static int
step(struct cluster *c, char **argv, int argc)
{
	static const char *const answers[] = {
	    "go", "full", "rate", "dead", "local"};
	static const char *const modes[] = {"off", "shared", "fallback"};
	struct cluster_sessions ss = {no_sessions, no_sessions, no_sessions,
	    no_sessions, no_yield, no_pending, NULL, 1};
	struct cluster_limits lim;
	enum cluster_answer a;
	double wait, since;

	if (strcmp(argv[0], "take") == 0 && argc >= 4) {
		lim.limit = atoi(argv[2]);
		lim.interval = atof(argv[3]);
		lim.learn = 1;
		lim.initial = 2;
		a = cluster_take(c, argv[1], argv[1], &lim, clock_now(), &wait);
		if (a == CLUSTER_GO || a == CLUSTER_LOCAL)
			printf("%s\n", answers[a]);
		else
			printf("%s %.3f\n", answers[a], wait);
		return 4;
	}
	if (strcmp(argv[0], "done") == 0 && argc >= 3) {
		cluster_done(c, argv[1], atoi(argv[2]), clock_now());
		printf("done\n");
		return 3;
	}
	if (strcmp(argv[0], "dead") == 0 && argc >= 3) {
		cluster_dead(c, argv[1], atof(argv[2]), clock_now());
		printf("dead\n");
		return 3;
	}
	if (strcmp(argv[0], "learn") == 0 && argc >= 3) {
		cluster_learn(c, argv[1], atoi(argv[2]), 1, clock_now());
		printf("learnt\n");
		return 3;
	}
	if (strcmp(argv[0], "tick") == 0) {
		(void)cluster_tick(c, clock_now(), &ss);
		printf("tick\n");
		return 1;
	}
	if (strcmp(argv[0], "sleep") == 0 && argc >= 2) {
		(void)usleep((useconds_t)(atof(argv[1]) * 1e6));
		printf("slept\n");
		return 2;
	}
	if (strcmp(argv[0], "state") == 0) {
		printf("%s\n", modes[cluster_state(c, &since)]);
		return 1;
	}
	if (strcmp(argv[0], "hold") == 0) {
		printf("held\n");
		(void)fflush(stdout);
		for (;;)
			(void)pause();
	}
	return -1;
}

int
main(int argc, char **argv)
{
	struct cluster_settings s;
	struct cluster *c;
	int n;

	if (argc < 3) {
		fprintf(stderr, "usage: mj_clustertry redis-address step...\n");
		return EX_USAGE;
	}
	(void)log_open("mj_clustertry", LOG_TO_STDERR);
	/* A write to a Redis that went away fails; it does not kill us. */
	(void)signal(SIGPIPE, SIG_IGN);
	memset(&s, 0, sizeof(s));
	(void)strlcpy(s.cluster_redis, argv[1], sizeof(s.cluster_redis));
	if (getenv("MJQ_CLUSTER_NODE") != NULL)
		(void)strlcpy(s.cluster_node, getenv("MJQ_CLUSTER_NODE"),
		    sizeof(s.cluster_node));
	s.cluster_lease_time = getenv("MJQ_CLUSTER_LEASE") != NULL
				   ? atoll(getenv("MJQ_CLUSTER_LEASE"))
				   : 30;
	/* [cluster] tls = yes, and tls_ca_file ("": the system store) */
	if (getenv("MJQ_CLUSTER_TLS_CA") != NULL) {
		s.cluster_tls = 1;
		(void)strlcpy(s.cluster_tls_ca_file,
		    getenv("MJQ_CLUSTER_TLS_CA"),
		    sizeof(s.cluster_tls_ca_file));
	}
	s.cluster_expected_nodes = 3;
	s.cluster_timeout_ms = 250;
	if ((c = cluster_open(&s)) == NULL)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (argv += 2, argc -= 2; argc > 0; argv += n, argc -= n)
		if ((n = step(c, argv, argc)) == -1) {
			fprintf(
			    stderr, "mj_clustertry: bad step %s\n", argv[0]);
			cluster_close(c);
			return EX_USAGE;
		}
	cluster_close(c);
	return 0;
}
