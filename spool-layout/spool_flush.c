/*
 * spool_flush.c - make every deferred message of QUEUE/ due now.
 *
 * A message file's mtime is its not-before time (spool-layout/README), so
 * "try everything now" (mj_queueserv flush, like postqueue -f) sets the
 * mtime of every message whose time lies in the future to now.  The
 * access time is left alone; the state file is not touched.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "spool_flush.h"
#include "spool_walk.h"

struct flush_ctx {
	time_t now;
	long count;
};

/* flush_one - a deferred message: due now */
static int
flush_one(void *arg, const struct spool_entry *e)
{
	struct flush_ctx *ctx = arg;
	struct timespec ts[2] = {{0, UTIME_OMIT}, {ctx->now, 0}};

	if (e->stray || e->st.st_mtime <= ctx->now)
		return 0;
	/* A message finished meanwhile is simply gone: not an error. */
	if (utimensat(AT_FDCWD, e->path, ts, AT_SYMLINK_NOFOLLOW) == 0)
		ctx->count++;
	return 0;
}

/* spool_flush - every deferred message due at now; *count of them */
int
spool_flush(const char *spool, time_t now, long *count)
{
	struct flush_ctx ctx = {now, 0};
	int r;

	r = spool_walk(spool, SPOOL_QUEUE, flush_one, &ctx);
	*count = ctx.count;
	return r == -1 ? -1 : 0;
}
