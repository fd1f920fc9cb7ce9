/*
 * request_one_click.h - a one-click unsubscribe queued by mj_unsubscribe
 * (request_one_click.c).
 */
#ifndef MJQ_REQUEST_ONE_CLICK_H
#define MJQ_REQUEST_ONE_CLICK_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

int request_one_click(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
