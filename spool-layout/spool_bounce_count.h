/*
 * spool_bounce_count.h - failures judged and complaints, counted per list
 * since the spool began (spool_bounce_count.c): $spool/state/bounce-counts.
 *
 * One line per list: "<list>@<domain> <recipient> <mailbox> <policy>
 * <transient> <unknown> <complaints>", the failures the runners judged
 * in each class (lists/bounce_class.h, in its order) and the ARF abuse
 * reports taken, so cat shows them; and "mark <message path>" while a
 * complaint counted is not yet forwarded (spool_bounce_count_once).
 * Written by the runners (lockedit's lock), read by mj_queueserv status.
 */
#ifndef MJQ_SPOOL_BOUNCE_COUNT_H
#define MJQ_SPOOL_BOUNCE_COUNT_H

#include <stddef.h>

#include "names.h"

#define SPOOL_BOUNCE_COUNT_FILE "state/bounce-counts"
#define SPOOL_BOUNCE_CLASSES                                                   \
	5 /* recipient mailbox policy transient unknown                        \
	   */

struct spool_bounce_count {
	char list[NAME_ADDR_MAX + 1]; /* list@domain */
	unsigned long long judged[SPOOL_BOUNCE_CLASSES];
	unsigned long long complaints;
};

/* spool_bounce_count_add - add's numbers (its list names the line) added
 * to the list's line, made when missing; 0, or -1 with errno */
int spool_bounce_count_add(
    const char *spool, const struct spool_bounce_count *add);
/* spool_bounce_count_once - as spool_bounce_count_add, and the message
 * at path msg marked in the same rewrite, unless it is marked already
 * (counted before its forward was retried); 1 counted, 0 counted
 * before, -1 with errno */
int spool_bounce_count_once(
    const char *spool, const struct spool_bounce_count *add, const char *msg);
/* spool_bounce_count_marked - 1 when msg is marked (counted, its state
 * file not yet made), 0 not, -1 with errno */
int spool_bounce_count_marked(const char *spool, const char *msg);
/* spool_bounce_count_settled - msg's mark taken away, its state file
 * being committed (a mark whose message has left the spool goes at any
 * rewrite anyway); 0, or -1 with errno */
int spool_bounce_count_settled(const char *spool, const char *msg);
/* spool_bounce_count_list - every line (*v malloc'd, n of them, in the
 * file's order); 0 or -1 */
int spool_bounce_count_list(
    const char *spool, struct spool_bounce_count **v, size_t *n);

#endif
