/*
 * fuzz_spool_state - libFuzzer target: the state file parser.
 *
 * spool_state_open reads a file by path, so the input is written as the
 * state file .m of a message m in a private temporary directory.  A
 * damaged file must give -1 with errno EINVAL and a reason; a file that
 * parses must give bounded fields whose offsets lie inside the file, and
 * the in-place updates a runner makes (a recipient's status, the
 * counters, the error) must leave a file that parses again to exactly
 * the updated values: a fixed-width field never shifts the lines after
 * it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_msg[PATH_MAX]; /* the message path; its state is .m */
static int fuzz_fd = -1;	/* the state file, rewritten per input */

/* fuzz_cleanup - remove the temporary directory at exit */
static void
fuzz_cleanup(void)
{
	char path[PATH_MAX + 8];

	snprintf(path, sizeof(path), "%s", fuzz_msg);
	*strrchr(path, '/') = '\0';
	strlcat(path, "/.m", sizeof(path));
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* fuzz_init - the directory and the state file, made once */
static int
fuzz_init(void)
{
	char dir[] = "/tmp/fuzz_spool_state.XXXXXX", path[PATH_MAX];

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(fuzz_msg, sizeof(fuzz_msg), "%s/m", dir);
	snprintf(path, sizeof(path), "%s/.m", dir);
	if ((fuzz_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) == -1)
		abort();
	atexit(fuzz_cleanup);
	return 0;
}

/* fuzz_check - the invariants of a parsed state of a file of size bytes */
static void
fuzz_check(const struct spool_state *st, size_t size)
{
	size_t i, sum = 0;

	if (st->fd == -1 || strlen(st->error) > SPOOL_STATE_ERROR_MAX ||
	    st->tries < 0 || st->tries > 999999 || st->crashes < 0 ||
	    st->crashes > 999999 || st->active < 0 || st->active > 9 ||
	    (size_t)st->off_tries + 6 > size ||
	    (size_t)st->off_crashes + 6 > size ||
	    (size_t)st->off_active + 1 > size ||
	    (size_t)st->off_error + SPOOL_STATE_ERROR_MAX > size ||
	    (size_t)st->rcpt_start > size)
		abort();
	for (i = 0; i < SPOOL_RCPT_NSTATUS; i++)
		sum += st->count[i];
	if (sum != st->nrcpt)
		abort();
}

/* fuzz_walk - read every recipient, check it, and give it a new status
 * (when set) or compare it with the one given (when !set); statuses are
 * kept in want[], one per recipient */
static void
fuzz_walk(struct spool_state *st, size_t size, unsigned char *want, int set)
{
	static struct spool_state_reader r;
	struct spool_rcpt rc;
	size_t n = 0;
	int k;

	spool_state_read_start(&r, st->fd, st->rcpt_start);
	while ((k = spool_state_read_rcpt(&r, &rc)) == 1) {
		if (rc.index != n || !name_rcpt_ok(rc.addr) ||
		    (size_t)rc.off + SPOOL_STATUS_WIDTH > size ||
		    rc.status >= SPOOL_RCPT_NSTATUS)
			abort();
		if (set) {
			want[n] = (unsigned char)((rc.status + 1 + n) %
						  SPOOL_RCPT_NSTATUS);
			if (spool_state_set_rcpt(st, rc.off, rc.status,
				(enum spool_rcpt_status)want[n]) == -1)
				abort();
		} else if (rc.status != want[n])
			abort();
		n++;
	}
	if (k != 0 || n != st->nrcpt)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct spool_state st, again;
	char why[256], error[SPOOL_STATE_ERROR_MAX + 1];
	unsigned char *want;
	size_t i;

	if (!ready)
		ready = fuzz_init() == 0;
	if (ftruncate(fuzz_fd, 0) == -1 ||
	    pwrite(fuzz_fd, data, size, 0) != (ssize_t)size)
		abort();
	why[0] = '\0';
	if (spool_state_open(&st, fuzz_msg, why, sizeof(why)) == -1) {
		if (errno != EINVAL || why[0] == '\0' || st.fd != -1)
			abort();
		return 0;
	}
	fuzz_check(&st, size);
	/* What a runner writes in place: every status, the counters, an
	 * error with control characters and more than the width. */
	if ((want = malloc(st.nrcpt + 1)) == NULL)
		abort();
	fuzz_walk(&st, size, want, 1);
	memset(error, 'e', sizeof(error) - 1);
	error[0] = '\n';
	error[sizeof(error) - 1] = '\0';
	if (spool_state_set_counts(&st, st.tries + 1, 1234567, !st.active) ==
		-1 ||
	    spool_state_set_error(&st, error) == -1)
		abort();
	if (spool_state_open(&again, fuzz_msg, why, sizeof(why)) == -1)
		abort();
	fuzz_check(&again, size);
	if (again.nrcpt != st.nrcpt || again.tries != st.tries ||
	    again.crashes != 999999 || again.active != st.active ||
	    strcmp(again.error, st.error) != 0 ||
	    strcmp(again.sender, st.sender) != 0 ||
	    strcmp(again.kind, st.kind) != 0 || again.arrival != st.arrival ||
	    again.version != st.version ||
	    (st.version == 2 && (again.msgid.size != st.msgid.size ||
				    again.msgid.hash != st.msgid.hash)) ||
	    again.rcpt_start != st.rcpt_start)
		abort();
	for (i = 0; i < SPOOL_RCPT_NSTATUS; i++)
		if (again.count[i] != st.count[i])
			abort();
	fuzz_walk(&again, size, want, 0);
	free(want);
	spool_state_close(&again);
	spool_state_close(&st);
	return 0;
}
