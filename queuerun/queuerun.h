/*
 * queuerun.h - the runner's work on the spool, as the protocol loop in
 * mj_queuerun.c drives it.
 *
 * The protocol loop (talking to mj_queueserv over the socketpair) owns the
 * process's main loop.  The delivery machinery never blocks it: it offers
 * an fd that becomes readable when it has progress to make, and a step
 * function that does what can be done now and says how long the loop may
 * sleep.  mj_queuerun -1 drives the same functions until nothing is due.
 */
#ifndef MJQ_QUEUERUN_H
#define MJQ_QUEUERUN_H

#include <stddef.h>
#include <stdio.h>

#include "deliver.h"
#include "settings.h"

struct queuerun;
struct lists_settings;
struct cluster_settings;

/* queuerun_open - set up a runner for this spool, with the list,
 * cluster and delivery sections the caller parsed (with the settings, in
 * one settings_load) and keeps until queuerun_close; NULL with err */
struct queuerun *queuerun_open(const struct settings *s,
    const struct lists_settings *ls, const struct cluster_settings *cs,
    const struct delivery_conf *dc, char *err, size_t errlen);
/* queuerun_rescan - walk the spool again at the next step (new mail) */
void queuerun_rescan(struct queuerun *q);
/* queuerun_step - make progress without blocking; *timeout_ms is set to
 * how long the caller may sleep at most (-1: until the event fd or a
 * rescan); returns -1 only on a fatal error */
int queuerun_step(struct queuerun *q, int *timeout_ms);
/* queuerun_event_fd - readable when queuerun_step has work; -1 if none */
int queuerun_event_fd(const struct queuerun *q);
/* queuerun_busy - messages in the active set (claimed, not finished) */
int queuerun_busy(const struct queuerun *q);
/* queuerun_idle - nothing claimed and the last walk found nothing due */
int queuerun_idle(const struct queuerun *q);
/* queuerun_done - messages finished (delivered, bounced, deferred) */
long queuerun_done(const struct queuerun *q);
/* queuerun_drain - stop claiming; finish or release what is in hand */
void queuerun_drain(struct queuerun *q);
/* queuerun_inflight - batches being delivered by the workers */
int queuerun_inflight(const struct queuerun *q);
/* queuerun_abandon - leave the batches in flight, mark every message in
 * hand no longer active; the caller exits (queuerun_close then returns) */
void queuerun_abandon(struct queuerun *q);
/* queuerun_close - release every claim and free */
void queuerun_close(struct queuerun *q);

#endif
