/*
 * listfn_msg.h - what the list functions work with: their environment
 * (the shared settings and the list sections of mjq.conf, the DKIM signer
 * and DMARC cache they open at first use)
 * and the message in hand, as the runner lends it to them.  The runner's
 * own record of a message (queuerun/qr_msg.h) holds this view and what
 * only the step loop reads; the functions never see the runner.
 *
 * A function runs on the runner's main thread or on one of its list
 * threads, one message at a time; it answers through its result and
 * through the message (its state file, its text, m->rescan), never by
 * writing the runner's state.
 */
#ifndef MJQ_LISTFN_MSG_H
#define MJQ_LISTFN_MSG_H

#include <limits.h>
#include <sys/types.h>

#include "names.h"
#include "settings.h"
#include "spool_name.h"
#include "spool_path.h"
#include "spool_state.h"

struct lists_settings;
struct rcpt_head;
struct arc_verdict;
struct dkim_signer;
struct dmarc_cache;

/* The functions' environment, owned by the runner. */
struct listfn_env {
	const struct settings *s;
	const struct lists_settings *ls; /* [request], [dkim], [arc], ... */
	const char *dns_server;		 /* [delivery] dns_server, for DMARC */
	struct dkim_signer *dkim;	 /* text_sign.c, opened at first use */
	struct dmarc_cache *dmarc;	 /* post_dmarc.c, opened at first use */
};

/* A message in hand, as the functions see it. */
struct listfn_msg {
	char path[PATH_MAX];
	char name[SPOOL_NAME_MAX + 1];
	char domain[NAME_DOMAIN_MAX + 1];
	char list[NAME_LIST_MAX + 1];
	enum spool_function function;
	int domain_prio, list_prio;
	int fd;	    /* the claim: LOCK_EX held while the runner has it */
	int datafd; /* the text as delivered, or -1 */
	off_t datasize;
	struct spool_state st;
	struct spool_msgid msgid; /* its text's identity, for its state */
	char verp_prefix[NAME_LIST_MAX + 16];
	char archive[PATH_MAX]; /* the list's archive maildir, or "" */
	char archive_rcpt[NAME_LIST_MAX + NAME_DOMAIN_MAX + 16];
	struct rcpt_head *head;	 /* per-recipient header fields, or NULL */
	struct arc_verdict *arc; /* a post's ARC, post_arc to text_sign */
	double claimed;		 /* when the runner took it */
	int rescan; /* the spool has a message to deliver soon: walk it */
};

#endif
