/*
 * request.h - the request and majordomo functions (request.c): mail to
 * <list>-request and majordomo@ read as commands, run, answered.
 */
#ifndef MJQ_REQUEST_H
#define MJQ_REQUEST_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

/* request_process - first contact: run the commands, commit the
 * answers, then an empty state file (listfn_state_empty) */
int request_process(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
