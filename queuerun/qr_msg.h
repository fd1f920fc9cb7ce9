/*
 * qr_msg.h - a claimed message, as the runner's stages pass it along the
 * step loop (queuerun.c): walk.c claims it, expand.c and the list
 * functions (listfn/, which see only its view, lm) fill in its state and
 * text, dispatch.c enters it into the scheduler, outcome.c writes its
 * results and ends its pass, walk.c releases it.
 */
#ifndef MJQ_QR_MSG_H
#define MJQ_QR_MSG_H

#include <stddef.h>
#include <stdio.h>

#include "listfn.h"
#include "spool_state.h"

struct sched_msg;

/* A message in the active set. */
struct qr_msg {
	struct qr_msg *next, *prev;
	struct listfn_msg lm;		   /* what the list functions see */
	struct spool_state_reader *reader; /* the scheduler's refills */
	size_t unread; /* recipients to do not yet given to the scheduler */
	FILE *fails;   /* this pass's failed recipients (fail_log.c) */
	size_t nfail;
	size_t fails_lost; /* failures deferred: no room for their reasons */
	struct sched_msg *smsg;
	int finished;	/* the scheduler has nothing more of it */
	size_t batches; /* in flight */
	int sync_due;	/* on the runner's sync_list (outcome.c) */
	struct qr_msg *sync_next;
	int sync_busy;	 /* its file is in the sync thread's job */
	int sync_handed; /* the updates that job makes durable */
	char last_error[SPOOL_STATE_ERROR_MAX + 1];
	void *map; /* the message text, mapped while it is expanded */
	size_t maplen;
	int listwork; /* its first processing is on a list thread */
};

#endif
