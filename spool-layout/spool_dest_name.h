/*
 * spool_dest_name.h - the one spelling of a destination's key
 * (spool_dest_name.c): the nexthop alone, or "source->nexthop" when the
 * mail goes out from a local address of a sending pool.
 */
#ifndef MJQ_SPOOL_DEST_NAME_H
#define MJQ_SPOOL_DEST_NAME_H

#include <stddef.h>

#define SPOOL_DEST_NAME_SEP "->"

/* spool_dest_name - "nexthop", or "source->nexthop" when source is not
 * empty (the name the scheduler, the session cache and the logs use);
 * -1 when it does not fit in len */
int spool_dest_name(
    char *buf, size_t len, const char *nexthop, const char *source);
/* spool_dest_key - "transport:nexthop" or "transport:source->nexthop",
 * a destination's whole key (status, and a table shared beyond one
 * host); -1 when it does not fit in len */
int spool_dest_key(char *buf, size_t len, const char *transport,
    const char *nexthop, const char *source);

#endif
