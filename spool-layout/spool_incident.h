/*
 * spool_incident.h - destinations that refuse a list's posts wholesale
 * (spool_incident.c): $spool/state/incidents.
 *
 * One line per open incident: "<since> <last> <count> <total>
 * <list>@<domain> <destination> <class> <reply>", the times in seconds
 * since the epoch, count of total recipients of the last post at that
 * destination answered with the class, then the reply, so cat shows what
 * is going on.  Written by the runners (lockedit's lock), read by
 * mj_queueserv status.  An incident not seen again for
 * SPOOL_INCIDENT_CLEAR seconds has cleared and its line goes.
 */
#ifndef MJQ_SPOOL_INCIDENT_H
#define MJQ_SPOOL_INCIDENT_H

#include <stddef.h>
#include <time.h>

#include "names.h"

#define SPOOL_INCIDENT_FILE "state/incidents"
#define SPOOL_INCIDENT_CLEAR (2 * 86400)

struct spool_incident {
	long long since, last;
	long long count, total;
	char list[NAME_ADDR_MAX + 1]; /* list@domain */
	char dest[NAME_DOMAIN_MAX + 1];
	char class[16];
	char reply[256];
};

/* spool_incident_note - in seen at now: 1 a new incident (no open line
 * for its list, destination and class), 0 an open one refreshed, -1
 * error */
int spool_incident_note(
    const char *spool, const struct spool_incident *in, time_t now);
/* spool_incident_list - the open incidents at now (*v malloc'd); 0 or
 * -1 */
int spool_incident_list(
    const char *spool, time_t now, struct spool_incident **v, size_t *n);

#endif
