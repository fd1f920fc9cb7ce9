/*
 * smtp_xact.h - one mail transaction over an open session: MAIL FROM,
 * RCPT TO for each recipient, DATA, the text, the final dot.
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

enum smtp_xact_result {
	SMTP_XACT_DONE, /* every recipient has its outcome */
	SMTP_XACT_STALE /* the session was unusable before anything was
			   sent: outcomes untouched, open a new session */
};

enum smtp_xact_result smtp_xact_run(struct smtp_session *, const char *,
    struct smtp_rcpt *, size_t, const struct smtp_data_msg *,
    struct smtp_status *);

#endif
