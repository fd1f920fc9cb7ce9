/*
 * qr_msg.h - a claimed message, as the runner's stages pass it along the
 * step loop (queuerun.c): walk.c claims it, expand.c and the functions
 * fill in its state and text, dispatch.c enters it into the scheduler,
 * outcome.c writes its results and ends its pass, walk.c releases it.
 */
#ifndef MJQ_QR_MSG_H
#define MJQ_QR_MSG_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "names.h"
#include "spool_name.h"
#include "spool_path.h"
#include "spool_state.h"

struct rcpt_head;
struct sched_msg;

/* A message in the active set. */
struct qr_msg {
	struct qr_msg *next, *prev;
	char path[PATH_MAX];
	char name[SPOOL_NAME_MAX + 1];
	char domain[NAME_DOMAIN_MAX + 1];
	char list[NAME_LIST_MAX + 1];
	enum spool_function function;
	int domain_prio, list_prio;
	int fd;	    /* the claim: LOCK_EX held while active */
	int datafd; /* the text as delivered */
	off_t datasize;
	struct spool_state st;
	struct spool_msgid msgid; /* its text's identity, for its state */
	struct spool_state_reader *reader; /* the scheduler's refills */
	size_t unread; /* recipients to do not yet given to the scheduler */
	FILE *fails;   /* this pass's failed recipients (fail_log.c) */
	size_t nfail;
	size_t fails_lost; /* failures deferred: no room for their reasons */
	char verp_prefix[NAME_LIST_MAX + 16];
	char archive[PATH_MAX]; /* the list's archive maildir, or "" */
	char archive_rcpt[NAME_LIST_MAX + NAME_DOMAIN_MAX + 16];
	struct rcpt_head *head; /* per-recipient header fields, or NULL */
	struct sched_msg *smsg;
	int finished;	/* the scheduler has nothing more of it */
	size_t batches; /* in flight */
	int sync_due;	/* on the runner's sync_list (outcome.c) */
	struct qr_msg *sync_next;
	double claimed;
	char last_error[SPOOL_STATE_ERROR_MAX + 1];
	void *map; /* the message text, mapped while it is expanded */
	size_t maplen;
	int listwork; /* its first processing is on a list thread */
};

#endif
