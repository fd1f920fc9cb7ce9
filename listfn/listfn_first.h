/*
 * listfn_first.h - the first door of the list functions (listfn_first.c):
 * a claimed message's first processing.
 */
#ifndef MJQ_LISTFN_FIRST_H
#define MJQ_LISTFN_FIRST_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

/* listfn_first - a message without a state file: its function makes one
 * (a post's text is made later, by listfn_text); 0 done, -1 try again
 * later (logged), -2 moved aside */
int listfn_first(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);
/* listfn_first_edits - 1 when m's first processing may wait on a list
 * lock (it edits the list), 0 when it only reads the list */
int listfn_first_edits(const struct listfn_msg *m);

#endif
