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
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgi_query.h"
#include "unsub_link.h"

/* unsub_link_parse - the link's fields from the query string; 0 ok, -1 a
 * field missing or unusable */
int
unsub_link_parse(const char *query, struct unsub_link *l)
{
	char whole[NAME_LIST_MAX + NAME_DOMAIN_MAX + 2], t[32], *at, *end;

	memset(l, 0, sizeof(*l));
	if (query == NULL ||
	    cgi_query_field(query, "l", whole, sizeof(whole)) == -1 ||
	    cgi_query_field(query, "a", l->addr, sizeof(l->addr)) == -1 ||
	    cgi_query_field(query, "t", t, sizeof(t)) == -1 ||
	    cgi_query_field(query, "s", l->mac, sizeof(l->mac)) == -1)
		return -1;
	if ((at = strchr(whole, '@')) == NULL)
		return -1;
	*at = '\0';
	if (strlcpy(l->list, whole, sizeof(l->list)) >= sizeof(l->list) ||
	    strlcpy(l->domain, at + 1, sizeof(l->domain)) >=
		sizeof(l->domain) ||
	    name_check_list(l->list) != NULL ||
	    name_check_domain(l->domain) != NULL || !name_addr_ok(l->addr))
		return -1;
	errno = 0;
	l->issued = strtoll(t, &end, 10);
	if (errno != 0 || end == t || *end != '\0' || l->issued < 0)
		return -1;
	return 0;
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
