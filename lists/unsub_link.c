/*
 * unsub_link.c - read a one-click link back: the query string that
 * unsub_link_make (unsub_token.c) writes,
 *
 *     <url>?l=<list>@<domain>&a=<address>&t=<issued>&s=<mac>
 *
 * percent-encoded, from the CGI's QUERY_STRING or from the
 * List-Unsubscribe field of a copy a complaint returns.  Every field is
 * checked as mj_enqueue checks its arguments (the address as a
 * subscriber, name_addr_ok); whether the MAC is genuine is
 * unsub_token_check's question.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cgi_query.h"
#include "unsub_link.h"

/* unsub_link_list - the list the query's l=<list>@<domain> names,
 * checked as mj_enqueue checks a list and a domain; 0 ok, -1 missing
 * or unusable */
int
unsub_link_list(const char *query, char list[NAME_LIST_MAX + 1],
    char domain[NAME_DOMAIN_MAX + 1])
{
	char whole[NAME_LIST_MAX + NAME_DOMAIN_MAX + 2], *at;

	if (query == NULL ||
	    cgi_query_field(query, "l", whole, sizeof(whole)) == -1 ||
	    (at = strchr(whole, '@')) == NULL)
		return -1;
	*at = '\0';
	if (strlcpy(list, whole, NAME_LIST_MAX + 1) >= NAME_LIST_MAX + 1 ||
	    strlcpy(domain, at + 1, NAME_DOMAIN_MAX + 1) >=
		NAME_DOMAIN_MAX + 1 ||
	    name_check_list(list) != NULL || name_check_domain(domain) != NULL)
		return -1;
	return 0;
}

/* unsub_link_parse - the link's fields from the query string; 0 ok, -1 a
 * field missing or unusable */
int
unsub_link_parse(const char *query, struct unsub_link *l)
{
	char t[32], *end;

	memset(l, 0, sizeof(*l));
	if (unsub_link_list(query, l->list, l->domain) == -1 ||
	    cgi_query_field(query, "a", l->addr, sizeof(l->addr)) == -1 ||
	    cgi_query_field(query, "t", t, sizeof(t)) == -1 ||
	    cgi_query_field(query, "s", l->mac, sizeof(l->mac)) == -1 ||
	    !name_addr_ok(l->addr))
		return -1;
	errno = 0;
	l->issued = strtoll(t, &end, 10);
	if (errno != 0 || end == t || *end != '\0' || l->issued < 0)
		return -1;
	return 0;
}

/* unsub_link_request - the request a one-click unsubscribe of l queues
 * to list-request (request_one_click.c reads it), made by program at
 * now, into text; its length, or -1 when it does not fit */
int
unsub_link_request(const struct unsub_link *l, const char *program, time_t now,
    char *text, size_t size)
{
	char date[64];
	struct tm tm;
	int n;

	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm) ==
		0)
		return -1;
	n = snprintf(text, size,
	    "Return-Path: <>\n"
	    "From: <%s>\n"
	    "To: <%s-request@%s>\n"
	    "Subject: unsubscribe (one-click)\n"
	    "Date: %s\n"
	    "Auto-Submitted: auto-generated\n"
	    "X-Mjq-One-Click: %lld %s\n"
	    "\n"
	    "A one-click unsubscribe (RFC 8058) made by %s.\n",
	    l->addr, l->list, l->domain, date, l->issued, l->mac, program);
	return n < 0 || (size_t)n >= size ? -1 : n;
}

/* unsub_link_of_header - the one-click link among the URIs of a
 * List-Unsubscribe value (<uri>, <uri>...); 0 found, -1 none usable */
int
unsub_link_of_header(const char *value, struct unsub_link *l)
{
	char query[2048];
	const char *p = value, *end, *q;

	while ((p = strchr(p, '<')) != NULL) {
		p++;
		if ((end = strchr(p, '>')) == NULL)
			break;
		q = memchr(p, '?', (size_t)(end - p));
		if (strncasecmp(p, "mailto:", 7) != 0 && q != NULL &&
		    (size_t)(end - q) <= sizeof(query)) {
			memcpy(query, q + 1, (size_t)(end - q - 1));
			query[end - q - 1] = '\0';
			if (unsub_link_parse(query, l) == 0)
				return 0;
		}
		p = end + 1;
	}
	memset(l, 0, sizeof(*l));
	return -1;
}
