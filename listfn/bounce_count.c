/*
 * bounce_count.c - count for the operator what the bounce handling saw:
 * each failure judged (a post's own, bounce_record.c, or one a report
 * names, bounce.c) in its class, each complaint taken
 * (bounce_complaint.c), per list in $spool/state/bounce-counts
 * (spool-layout/spool_bounce_count.c), which mj_queueserv status shows.
 */
#include <stdio.h>
#include <string.h>

#include "bounce_count.h"
#include "listfn_msg.h"
#include "log.h"
#include "spool_bounce_count.h"

/* The file's columns, in its order: recipient first, unknown last. */
static const enum bounce_class count_column[SPOOL_BOUNCE_CLASSES] = {
    BOUNCE_RECIPIENT, BOUNCE_MAILBOX, BOUNCE_POLICY, BOUNCE_TRANSIENT,
    BOUNCE_UNKNOWN};

/* bounce_count - add to m's list's counters */
void
bounce_count(struct listfn_env *env, const struct listfn_msg *m,
    const size_t n[BOUNCE_CLASSES], unsigned long long complaints)
{
	struct spool_bounce_count c;
	size_t i, any = complaints;

	memset(&c, 0, sizeof(c));
	for (i = 0; i < SPOOL_BOUNCE_CLASSES; i++)
		any += c.judged[i] = n != NULL ? n[count_column[i]] : 0;
	if (any == 0)
		return;
	c.complaints = complaints;
	if (snprintf(c.list, sizeof(c.list), "%s@%s", m->list, m->domain) >=
		(int)sizeof(c.list) ||
	    spool_bounce_count_add(env->s->spool_dir, &c) == -1)
		log_warn("%s: cannot count the failures of %s@%s in %s",
		    m->name, m->list, m->domain, SPOOL_BOUNCE_COUNT_FILE);
}
