/*
 * sched_rcpt.h - an entry, a batch of one job's recipients for one
 * destination, and the recipients' way in and out (sched_rcpt.c)
 */
#ifndef MJQ_SCHED_RCPT_H
#define MJQ_SCHED_RCPT_H

#include <stdint.h>
#include "sched_list.h"

struct sched;
struct sched_peer;
struct sched_queue;
struct sched_msg;

/* Where an entry is. */
enum sched_entry_state {
	ENTRY_TODO, /* waiting on its peer */
	ENTRY_BUSY, /* handed out for delivery */
	ENTRY_DEFER /* handed back for deferral (dead destination) */
};

struct sched_entry {
	SCHED_LINK(sched_entry) link; /* peer's entries or defer list */
	struct sched_peer *peer;
	uint32_t nrcpt;
	uint32_t cap; /* 0: recipients are inline */
	union {
		uint32_t inl[2];
		uint32_t *ptr;
	} rcpt;
	uint8_t state; /* enum sched_entry_state */
};

void sched_rcpt_refill(struct sched_msg *, double now);
void sched_rcpt_finish(struct sched *, struct sched_entry *, int *flags);
void sched_rcpt_defer_todo(struct sched_queue *);
void sched_rcpt_teardown(struct sched *);

#endif
