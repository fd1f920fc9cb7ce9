/*
 * owner_mail.h - the owner function (owner_mail.c): mail to
 * <list>-owner goes to the owners, unless it is a bounce (bounce.c).
 */
#ifndef MJQ_OWNER_MAIL_H
#define MJQ_OWNER_MAIL_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

/* owner_mail - snapshot the owners into the state file */
int owner_mail(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len);

#endif
