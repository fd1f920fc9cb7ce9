/*
 * listweb_queue.c - what a page changes, it changes as mail does: a
 * request from the address concerned to <list>-request, carrying one
 * command (subscribe, set, confirm), committed into the spool
 * (spool_request.c).  The runner runs it as it runs mail, mails the
 * tokens and edits the subscribers file under its lock; mj_listweb
 * never touches list files.  The requests that would be queued are
 * counted first against [unsubscribe]'s address_requests_per_hour (per
 * address and list) and requests_per_minute (in all, shared with
 * mj_unsubscribe), so a flood of POSTs cannot flood the runner.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "listweb.h"
#include "log.h"
#include "spool_request.h"

/* listweb_rate - count a request for addr (unsub_rate): 0 go on, 429
 * the address asked too often, 503 too many in all or the count cannot
 * be kept */
int
listweb_rate(const struct listweb *w, const char *addr)
{
	char key[NAME_ADDR_MAX + NAME_LIST_MAX + NAME_DOMAIN_MAX + 8];
	int r;

	if ((size_t)snprintf(key, sizeof(key), "web %s %s@%s", addr, w->list,
		w->domain) >= sizeof(key))
		return 503; /* cannot be: key holds the three */
	r = unsub_rate(w->s, w->ls, key, w->now);
	return r == -1 ? 503 : r;
}

/* listweb_queue - commit a request from <from> to list-request whose
 * one command is command; 0 ok, -1 with errno */
int
listweb_queue(const struct listweb *w, const char *from, const char *command)
{
	char text[2048], date[64];
	struct tm tm;
	int n;

	if (gmtime_r(&w->now, &tm) == NULL ||
	    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm) ==
		0)
		return -1;
	/* The command is the Subject; "end" stops the body's. */
	n = snprintf(text, sizeof(text),
	    "Return-Path: <%s>\n"
	    "From: <%s>\n"
	    "To: <%s-request@%s>\n"
	    "Subject: %s\n"
	    "Date: %s\n"
	    "X-Mjq-Web: mj_listweb\n"
	    "\n"
	    "end\n",
	    from, from, w->list, w->domain, command, date);
	if (n < 0 || (size_t)n >= sizeof(text))
		return -1;
	return spool_request_commit(
	    w->s->spool_dir, w->domain, w->list, text, (size_t)n, w->now);
}
