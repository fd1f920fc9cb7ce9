/*
 * spool_request.c - a request committed like any message (spool_commit.c)
 * into the queue of list@domain's request function, at the priority the
 * list's -request alias has by default.
 */
#include <limits.h>
#include <unistd.h>

#include "spool_commit.h"
#include "spool_name.h"
#include "spool_path.h"
#include "spool_request.h"

/* spool_request_commit - commit text as a request to list@domain */
int
spool_request_commit(const char *spool, const char *domain, const char *list,
    const char *text, size_t len, time_t now)
{
	char dir[PATH_MAX], final[PATH_MAX];
	struct spool_name name;
	struct spool_tmp tmp;

	if (spool_queue_dir(dir, sizeof(dir), spool, SPOOL_QUEUE,
		SPOOL_REQUEST_PRIO, domain, SPOOL_REQUEST_PRIO,
		SPOOL_FN_REQUEST) == -1 ||
	    spool_name_init(&name, now, getpid(), list, "", "") == -1)
		return -1;
	if (spool_tmp_put(&tmp, spool, text, len) == -1)
		return -1;
	if (spool_tmp_link(&tmp, dir, &name, final, sizeof(final)) == -1) {
		spool_tmp_discard(&tmp);
		return -1;
	}
	return 0;
}
