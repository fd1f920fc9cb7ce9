/*
 * smtp_xact.h - one mail transaction over an open session: MAIL FROM,
 * RCPT TO for each recipient, DATA, the text, the final dot; with the
 * next transaction's envelope chained behind the dot when it is known.
 */
#ifndef MJQ_SMTP_XACT_H
#define MJQ_SMTP_XACT_H

#include <stddef.h>

#include "smtp_data.h"
#include "smtp_session.h"

/* One recipient: the address in, its outcome out. */
struct smtp_rcpt {
	const char *addr; /* without angle brackets */
	struct smtp_status st;
};

/* One transaction: the envelope and the text; and, optionally, work of
 * the caller's to do while the server takes the text (wait(wait_arg),
 * called at most once a call of smtp_xact_run, after the final dot has
 * gone and before its reply is read: the next copy made and signed
 * while its reply travels, so that the reply is there when read). */
struct smtp_xact {
	const char *sender;
	struct smtp_rcpt *r; /* n recipients, outcomes out */
	size_t n;
	const struct smtp_data_msg *m;
	void (*wait)(void *);
	void *wait_arg;
};

enum smtp_xact_result {
	SMTP_XACT_DONE, /* every recipient has its outcome */
	SMTP_XACT_STALE /* the session was unusable before anything was
			   sent: outcomes untouched, open a new session */
};

/* smtp_xact_run(s, x, next, st) - run x over s.  next, when not NULL,
 * is the transaction the caller runs next over s, for certain: whatever
 * x's outcome, its next call with s is smtp_xact_run(s, next, ...), or
 * it closes s.  With PIPELINING, next's envelope then goes out in the
 * write of x's final dot (RFC 2920 3.1), and its replies are read by
 * that call, which returns SMTP_XACT_STALE when the session is gone in
 * between (next goes to a new session, as after a stale RSET). */
enum smtp_xact_result smtp_xact_run(struct smtp_session *,
    const struct smtp_xact *, const struct smtp_xact *, struct smtp_status *);

#endif
