/*
 * deliver_sts_fetch.c - an MTA-STS policy through the helper program
 * mj_stsfetch, so that the runner does not link libcurl (and its two
 * dozen libraries: some 9 MB of peak RSS per runner).  The policy thread
 * runs the program once per fetch:
 *
 *   mj_stsfetch -m MTA_STS_POLICY_MAX -t smtp_mta_sts_timeout(ms)
 *               [-A smtp_mta_sts_CAfile] [-c smtp_mta_sts_connect_to]
 *               -- domain
 *
 * exit 0: the policy on its standard output; exit 1: one line of why
 * not (2: the policy server's certificate failed; 3: what it served is
 * no policy); anything else is a failure of the program.  The program keeps the
 * fetch's rules (stsfetch/stsfetch_http.c); this side adds a deadline of
 * its own, the fetch's time and a little more, past which the program
 * is killed.  Fetches are rare (a policy is cached for its max_age),
 * so a process each costs nothing worth keeping one around for.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "deliver_spawn.h"
#include "deliver_sts_fetch.h"
#include "selfpath.h"
#include "smtp.h"

#define DELIVER_STS_FETCH_SLACK 5.0 /* s past the fetch's own time limit */

/* The program, found once before the policy thread starts. */
static char deliver_sts_fetch_prog[PATH_MAX];

/* deliver_sts_fetch_find - mj_stsfetch beside the runner (installed) or
 * in ../stsfetch/ (the build tree); 0, or -1 with err */
int
deliver_sts_fetch_find(char *err, size_t errlen)
{
	return selfpath_sibling("mj_stsfetch", "stsfetch",
	    deliver_sts_fetch_prog, sizeof(deliver_sts_fetch_prog), err,
	    errlen);
}

/* deliver_sts_fetch_outcome - what the program's exit says; 0 when buf
 * holds the policy, or an enum deliver_sts_fetch_fail with why */
static int
deliver_sts_fetch_outcome(int status, char *buf, size_t total, size_t buflen,
    char *why, size_t whylen)
{
	char said[300];
	size_t n = total < sizeof(said) - 1 ? total : sizeof(said) - 1;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (total <= buflen)
			return 0;
		snprintf(why, whylen, "policy too large");
		return DELIVER_STS_FETCH_NOT_POLICY;
	}
	memcpy(said, buf, n);
	said[n] = '\0';
	said[strcspn(said, "\r\n")] = '\0';
	if (WIFEXITED(status) && WEXITSTATUS(status) >= 1 &&
	    WEXITSTATUS(status) <= 3) {
		snprintf(why, whylen, "%s", said);
		return -WEXITSTATUS(status); /* DELIVER_STS_FETCH_* */
	}
	if (WIFEXITED(status))
		snprintf(why, whylen, "mj_stsfetch exit %d%s%s",
		    WEXITSTATUS(status), said[0] ? ": " : "", said);
	else
		snprintf(why, whylen, "mj_stsfetch killed by signal %d",
		    WTERMSIG(status));
	return -1;
}

/* deliver_sts_fetch_run - the policy of domain into buf (*len bytes) by
 * mj_stsfetch; 0, or an enum deliver_sts_fetch_fail with why */
int
deliver_sts_fetch_run(const char *domain, const struct delivery_params *p,
    char *buf, size_t buflen, size_t *len, char *why, size_t whylen)
{
	char max[24], ms[24], *argv[12];
	double limit = (double)p->mta_sts_timeout + DELIVER_STS_FETCH_SLACK;
	int i = 0, fd, timed_out, status;
	size_t total;
	pid_t pid;

	*len = 0;
	snprintf(max, sizeof(max), "%zu", buflen);
	snprintf(ms, sizeof(ms), "%lld", p->mta_sts_timeout * 1000);
	argv[i++] = deliver_sts_fetch_prog;
	argv[i++] = "-m";
	argv[i++] = max;
	argv[i++] = "-t";
	argv[i++] = ms;
	if (p->mta_sts_cafile[0] != '\0') {
		argv[i++] = "-A";
		argv[i++] = (char *)p->mta_sts_cafile;
	}
	if (p->mta_sts_connect_to[0] != '\0') {
		argv[i++] = "-c";
		argv[i++] = (char *)p->mta_sts_connect_to;
	}
	argv[i++] = "--";
	argv[i++] = (char *)domain;
	argv[i] = NULL;
	if ((i = deliver_spawn(
		 argv, environ, -1, DELIVER_SPAWN_ERR_KEEP, &pid, &fd)) != 0) {
		snprintf(why, whylen, "cannot run %s: %s",
		    deliver_sts_fetch_prog, strerror(i));
		return -1;
	}
	timed_out = deliver_spawn_read(
			fd, clock_now() + limit, buf, buflen, &total) == -1;
	close(fd);
	status = deliver_spawn_wait(pid, timed_out);
	if (timed_out) {
		snprintf(why, whylen, "mj_stsfetch killed after %.0f s", limit);
		return -1;
	}
	if ((i = deliver_sts_fetch_outcome(
		 status, buf, total, buflen, why, whylen)) != 0)
		return i;
	*len = total;
	return 0;
}
