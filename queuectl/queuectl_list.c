/*
 * queuectl_list.c - the queue as mailq shows it (mj_queuerun -l): one line per
 * message of QUEUE/, HOLD/ and BAD/ with what its state file says, the
 * last error among it (or, for a message without one, the error of its
 * first processing that failed, kept in .<name>.try).
 *
 * Read-only and lock-free: a message being delivered is shown as its
 * state file stands at that moment.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "queuectl.h"
#include "settings.h"
#include "spool_state.h"
#include "spool_walk.h"
#include "spool_why.h"

struct queuectl_list_ctx {
	const char *spool;
	FILE *out;
	time_t now;
	long count;
};

/* queuectl_list_one - one message */
static int
queuectl_list_one(void *arg, const struct spool_entry *e)
{
	struct queuectl_list_ctx *c = arg;
	struct spool_state st;
	char why[128], age[32], next[32], left[48], reason[SPOOL_WHY_MAX];
	char tryerr[SPOOL_STATE_ERROR_MAX + 1];
	const char *rel = e->path, *error = "";
	size_t n = strlen(c->spool);
	long long arrival = e->st.st_mtime;
	struct tm tm;
	int have;

	if (strncmp(rel, c->spool, n) == 0 && rel[n] == '/')
		rel += n + 1;
	have = spool_state_open(&st, e->path, why, sizeof(why)) == 0;
	if (have) {
		snprintf(left, sizeof(left), "%zu/%zu", spool_state_todo(&st),
		    st.nrcpt);
		arrival = st.arrival;
		error = st.error;
	} else {
		snprintf(left, sizeof(left), "%s",
		    errno == ENOENT ? "new" : "damaged");
		/* a first processing that failed left its reason */
		spool_state_attempt_error(e->path, tryerr, sizeof(tryerr));
		error = tryerr;
	}
	clock_span((long long)(c->now - arrival), age, sizeof(age));
	if (strcmp(e->top, SPOOL_QUEUE) != 0)
		snprintf(next, sizeof(next), "%s",
		    strcmp(e->top, SPOOL_HOLD) == 0 ? "held" : "quarantined");
	else if (e->st.st_mtime <= c->now)
		snprintf(next, sizeof(next), "due");
	else if (localtime_r(&e->st.st_mtime, &tm) == NULL ||
		 strftime(next, sizeof(next), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(next, sizeof(next), "later");
	if (spool_why_read(e->path, reason, sizeof(reason), NULL) == -1)
		reason[0] = '\0';
	fprintf(c->out,
	    "%s age=%s size=%lld function=%s left=%s next=%s%s%s%s%s\n", rel,
	    age, (long long)e->st.st_size, spool_function_name(e->function),
	    left, next, *error ? " error=" : "", error,
	    reason[0] ? " why=" : "", reason);
	if (have)
		spool_state_close(&st);
	c->count++;
	return 0;
}

/* queuectl_list - every message of the spool, priority order; -1 when
 * QUEUE/ cannot be read */
int
queuectl_list(const struct settings *s, FILE *out)
{
	struct queuectl_list_ctx c = {s->spool_dir, out, time(NULL), 0};
	int r = 0;

	if (spool_walk_tops(s->spool_dir, 0, queuectl_list_one, &c) == -1)
		r = -1;
	fprintf(out, "%ld message%s\n", c.count, c.count == 1 ? "" : "s");
	return r;
}
