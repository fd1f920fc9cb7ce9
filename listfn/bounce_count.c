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

/* count_of - m's numbers into c; the sum of them */
static size_t
count_of(const struct listfn_msg *m, const size_t n[BOUNCE_CLASSES],
    unsigned long long complaints, struct spool_bounce_count *c)
{
	size_t i, any = complaints;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < SPOOL_BOUNCE_CLASSES; i++)
		any += c->judged[i] = n != NULL ? n[count_column[i]] : 0;
	c->complaints = complaints;
	if (snprintf(c->list, sizeof(c->list), "%s@%s", m->list, m->domain) >=
	    (int)sizeof(c->list))
		c->list[0] = '\0'; /* refused by the spool's writer */
	return any;
}

/* bounce_count - add to m's list's counters */
void
bounce_count(struct listfn_env *env, const struct listfn_msg *m,
    const size_t n[BOUNCE_CLASSES], unsigned long long complaints)
{
	struct spool_bounce_count c;

	if (count_of(m, n, complaints, &c) != 0 &&
	    spool_bounce_count_add(env->s->spool_dir, &c) == -1)
		log_warn("%s: cannot count the failures of %s@%s in %s",
		    m->name, m->list, m->domain, SPOOL_BOUNCE_COUNT_FILE);
}

/* bounce_count_once - add to m's list's counters unless m was counted
 * before its state file was made */
int
bounce_count_once(struct listfn_env *env, const struct listfn_msg *m,
    const size_t n[BOUNCE_CLASSES], unsigned long long complaints)
{
	struct spool_bounce_count c;
	int r;

	if (count_of(m, n, complaints, &c) == 0)
		return 1;
	if ((r = spool_bounce_count_once(env->s->spool_dir, &c, m->path)) == -1)
		log_warn("%s: cannot count the failures of %s@%s in %s",
		    m->name, m->list, m->domain, SPOOL_BOUNCE_COUNT_FILE);
	else if (r == 0)
		log_info("%s: counted before its state file was made: not "
			 "counted again",
		    m->name);
	return r == 0 ? 0 : 1;
}

/* bounce_count_was - m counted by an earlier pass */
int
bounce_count_was(struct listfn_env *env, const struct listfn_msg *m)
{
	int r;

	if ((r = spool_bounce_count_marked(env->s->spool_dir, m->path)) == -1)
		log_warn(
		    "%s: cannot read %s", m->name, SPOOL_BOUNCE_COUNT_FILE);
	return r;
}

/* bounce_count_settled - m's state file is made: its mark goes */
void
bounce_count_settled(struct listfn_env *env, const struct listfn_msg *m)
{
	if (spool_bounce_count_settled(env->s->spool_dir, m->path) == -1)
		log_warn("%s: cannot take its mark out of %s", m->name,
		    SPOOL_BOUNCE_COUNT_FILE);
}
