/*
 * listwork.h - the first processing of list mail on threads of their
 * own (listwork.c), so that neither a list lock held by an administrator
 * (lockedit waits up to LOCKEDIT_WAIT_MS) nor reading a large list stops
 * the main thread's deliveries.
 */
#ifndef MJQ_QUEUERUN_LISTWORK_H
#define MJQ_QUEUERUN_LISTWORK_H

struct queuerun;
struct qr_msg;

/* The threads: one for list-management mail (requests, majordomo@,
 * owner mail and the bounces in it), which may wait on a list lock; one
 * for posts (posting policy, snapshot), which takes none. */
enum listwork_lane { LISTWORK_EDITS, LISTWORK_POSTS, LISTWORK_LANES };

/* The work a message gets on the thread: fn(q, m) returns what
 * listfn_first would; the main thread gets it back from listwork_done. */
typedef int listwork_fn(struct queuerun *q, struct qr_msg *m);

int listwork_submit(struct queuerun *q, struct qr_msg *m,
    enum listwork_lane lane, listwork_fn *fn);
struct qr_msg *listwork_done(struct queuerun *q, int *result);
int listwork_busy(const struct queuerun *q);
void listwork_stop(struct queuerun *q);
void listwork_free(struct queuerun *q);

#endif
