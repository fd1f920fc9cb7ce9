/*
 * request_greet.h - the list's welcome and goodbye texts in the mail
 * that tells a subscriber of a change (request_greet.c).
 */
#ifndef MJQ_REQUEST_GREET_H
#define MJQ_REQUEST_GREET_H

#include <stdio.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* request_greet - the list's text (file: "welcome" or "goodbye"), if it
 * has one, into fp; one that cannot be read is logged and left out.  1
 * written, 0 none */
int request_greet(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *list, const char *file, FILE *fp);
/* request_greet_has - 1 when m's list has the text (file), else 0 */
int request_greet_has(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *file);
/* request_goodbye - a notice to addr, taken off m's list by a removal
 * that mailed it nothing else (one-click), with the list's goodbye text:
 * none when the list has no text; 0, or -1 when it could not be queued */
int request_goodbye(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *addr);

#endif
