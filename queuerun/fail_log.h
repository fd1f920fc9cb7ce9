/*
 * fail_log.h - this pass's failed recipients of a message, on disk until
 * the bounce (fail_log.c); read back FAIL_BATCH_MAX at a time, as the
 * batches the DSN is made of (struct fail_batch, listfn/dsn.h).
 */
#ifndef MJQ_FAIL_LOG_H
#define MJQ_FAIL_LOG_H

#include <stddef.h>
#include <sys/types.h>

#include "listfn.h"
#include "spool_state.h"

struct queuerun;
struct qr_msg;

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
