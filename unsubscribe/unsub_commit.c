/*
 * unsub_commit.c - a one-click unsubscribe becomes a request in the
 * spool, committed like any message (spool_commit.c), to the list's
 * request function: the runner re-checks the token, edits the
 * subscribers file under its lock and logs it.  mj_unsubscribe never
 * touches list files itself.
 *
 * The request is a small message from the address to <list>-request,
 * with the token in X-Mjq-One-Click.  Mail that carries the header from
 * outside gains nothing: without the secret its token does not verify.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "spool_commit.h"
#include "spool_name.h"
#include "spool_path.h"
#include "unsub.h"

#define UNSUB_PRIO 10 /* the default tiers of the list's aliases */

/* unsub_commit - commit the request; 0 ok, -1 with errno */
int
unsub_commit(const struct settings *s, const struct unsub_link *l)
{
	char text[2048], date[64], dir[PATH_MAX], final[PATH_MAX];
	struct spool_name name;
	struct spool_tmp tmp;
	time_t now = time(NULL);
	int n;

	if (clock_date(now, date, sizeof(date)) == -1)
		return -1;
	n = snprintf(text, sizeof(text),
	    "Return-Path: <>\n"
	    "From: <%s>\n"
	    "To: <%s-request@%s>\n"
	    "Subject: unsubscribe (one-click)\n"
	    "Date: %s\n"
	    "Auto-Submitted: auto-generated\n"
	    "X-Mjq-One-Click: %lld %s\n"
	    "\n"
	    "A one-click unsubscribe (RFC 8058) made by mj_unsubscribe.\n",
	    l->addr, l->list, l->domain, date, l->issued, l->mac);
	if (n < 0 || (size_t)n >= sizeof(text))
		return -1;
	if (spool_queue_dir(dir, sizeof(dir), s->spool_dir, SPOOL_QUEUE,
		UNSUB_PRIO, l->domain, UNSUB_PRIO, SPOOL_FN_REQUEST) == -1 ||
	    spool_name_init(&name, now, getpid(), l->list, "", "") == -1)
		return -1;
	if (spool_tmp_put(&tmp, s->spool_dir, text, (size_t)n) == -1)
		return -1;
	if (spool_tmp_link(&tmp, dir, &name, final, sizeof(final)) == -1) {
		spool_tmp_discard(&tmp);
		return -1;
	}
	return 0;
}
