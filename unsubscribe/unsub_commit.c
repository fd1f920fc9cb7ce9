/*
 * unsub_commit.c - a one-click unsubscribe becomes a request in the
 * spool, committed like any message (spool_request.c), to the list's
 * request function: the runner re-checks the token, edits the
 * subscribers file under its lock and logs it.  mj_unsubscribe never
 * touches list files itself.
 *
 * The request is a small message from the address to <list>-request,
 * with the token in X-Mjq-One-Click (unsub_link_request).  Mail that
 * carries the header from outside gains nothing: without the secret its
 * token does not verify.
 */
#include <time.h>

#include "spool_request.h"
#include "unsub.h"

/* unsub_commit - commit the request; 0 ok, -1 with errno */
int
unsub_commit(const struct settings *s, const struct unsub_link *l)
{
	char text[2048];
	time_t now = time(NULL);
	int n;

	if ((n = unsub_link_request(
		 l, "mj_unsubscribe", now, text, sizeof(text))) == -1)
		return -1;
	return spool_request_commit(
	    s->spool_dir, l->domain, l->list, text, (size_t)n, now);
}
