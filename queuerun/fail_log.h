/*
 * fail_log.h - this pass's failed recipients of a message, on disk until
 * the bounce (fail_log.c); read back FAIL_BATCH_MAX at a time.
 */
#ifndef MJQ_FAIL_LOG_H
#define MJQ_FAIL_LOG_H

#include <stddef.h>
#include <sys/types.h>

#include "spool_state.h"

struct queuerun;
struct qr_msg;

#define FAIL_BATCH_MAX 1000 /* failed recipients named in one bounce */

struct fail_rec {
	off_t off;
	const char *addr, *dsn, *diag;
};

struct fail_batch {
	size_t n;
	struct fail_rec rec[FAIL_BATCH_MAX];
	char *line[FAIL_BATCH_MAX]; /* the text the records point into */
};

/* fail_log_add - a recipient failed: marked failed, its reason logged;
 * deferred instead when the log cannot be written */
void fail_log_add(struct queuerun *q, struct qr_msg *m, off_t off,
    enum spool_rcpt_status from, const char *addr, const char *dsn,
    const char *diag);
/* fail_log_rewind - read the log from its start */
int fail_log_rewind(struct qr_msg *m);
/* fail_log_batch - the next FAIL_BATCH_MAX records: 1, 0 at the end, -1 */
int fail_log_batch(struct qr_msg *m, struct fail_batch *b);
/* fail_log_batch_free - the text of a batch */
void fail_log_batch_free(struct fail_batch *b);
/* fail_log_close - drop the log */
void fail_log_close(struct qr_msg *m);

#endif
