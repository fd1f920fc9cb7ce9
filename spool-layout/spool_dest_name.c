/*
 * spool_dest_name.c - the one spelling of a destination's key.
 *
 * A destination is a transport and a nexthop and, when its mail leaves
 * from a pool of local addresses ([delivery] source_pool), the source
 * address: the receiver throttles per sending address, so each pair
 * is a destination of its own to the scheduler, the session cache, the
 * shared table and the status.  The source goes first, as KumoMTA names
 * its ready queues ("source->domain"): a source is an IP address, which
 * never holds "->", so the name reads back unambiguously whatever the
 * nexthop holds (a pipe command may hold anything).  Without a source
 * the name is the nexthop, as it always was.
 */
#include <stdio.h>
#include <string.h>

#include "spool_dest_name.h"

/* spool_dest_name - "nexthop" or "source->nexthop" */
int
spool_dest_name(char *buf, size_t len, const char *nexthop, const char *source)
{
	int n;

	if (source == NULL || *source == '\0')
		n = snprintf(buf, len, "%s", nexthop);
	else
		n = snprintf(
		    buf, len, "%s" SPOOL_DEST_NAME_SEP "%s", source, nexthop);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* spool_dest_key - "transport:" and the name */
int
spool_dest_key(char *buf, size_t len, const char *transport,
    const char *nexthop, const char *source)
{
	size_t tl = strlen(transport);

	if (tl + 1 >= len)
		return -1;
	memcpy(buf, transport, tl);
	buf[tl] = ':';
	return spool_dest_name(buf + tl + 1, len - tl - 1, nexthop, source);
}
