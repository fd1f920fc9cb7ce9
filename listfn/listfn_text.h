/*
 * listfn_text.h - the second door of the list functions (listfn_text.c):
 * the text a message is sent with.
 */
#ifndef MJQ_LISTFN_TEXT_H
#define MJQ_LISTFN_TEXT_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

/* listfn_text - m's text as delivered, in m->datafd, signed; 0, -1 try
 * again later (logged), -2 moved aside */
int listfn_text(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
