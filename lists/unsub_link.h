/*
 * unsub_link.h - what a one-click link names (unsub_link.c): the query
 * <url>?l=<list>@<domain>&a=<address>&t=<issued>&s=<mac> that
 * unsub_link_make writes, read back by the CGI and by the complaint
 * handling, which finds it in a returned copy's List-Unsubscribe.
 */
#ifndef MJQ_UNSUB_LINK_H
#define MJQ_UNSUB_LINK_H

#include "names.h"
#include "unsub_token.h"

/* What the link names: the query string, decoded and checked. */
struct unsub_link {
	char list[NAME_LIST_MAX + 1];
	char domain[NAME_DOMAIN_MAX + 1];
	char addr[NAME_ADDR_MAX + 1];
	long long issued;
	char mac[UNSUB_MAC_HEX + 1];
};

int unsub_link_parse(const char *query, struct unsub_link *l);
int unsub_link_of_header(const char *value, struct unsub_link *l);

#endif
