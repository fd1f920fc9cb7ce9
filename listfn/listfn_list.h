/*
 * listfn_list.h - the list of a message (listfn_list.c).
 */
#ifndef MJQ_LISTFN_LIST_H
#define MJQ_LISTFN_LIST_H

#include <stddef.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* listfn_list_ready - 0 when m's list can be read now; -1 (logged)
 * when its directories or subscribers file are missing, -2 when it was
 * removed on purpose (moved to BAD/) */
int listfn_list_ready(struct listfn_env *env, struct listfn_msg *m);
/* listfn_list_conf - the config of m's list; -1 (logged) when it cannot
 * be read now, -2 when the list was removed (moved to BAD/) */
int listfn_list_conf(
    struct listfn_env *env, struct listfn_msg *m, struct listconf *lc);

#endif
