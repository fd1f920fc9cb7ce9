/*
 * request.h - the request and majordomo functions (request.c): mail to
 * <list>-request and majordomo@ read as commands, run, answered.
 */
#ifndef MJQ_REQUEST_H
#define MJQ_REQUEST_H

#include <stddef.h>

struct queuerun;
struct qr_msg;

/* request_process - first contact: run the commands, commit the
 * answers, then an empty state file (expand_state_empty) */
int request_process(
    struct queuerun *q, struct qr_msg *m, const char *text, size_t len);

#endif
