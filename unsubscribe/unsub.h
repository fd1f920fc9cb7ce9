/*
 * unsub.h - mj_unsubscribe's parts: the CGI request (unsub_cgi.c), the
 * answers a person or a mailbox provider sees (unsub_page.c), and the
 * request committed into the spool (unsub_commit.c).
 */
#ifndef MJQ_UNSUB_H
#define MJQ_UNSUB_H

#include <stddef.h>

#include "names.h"
#include "settings.h"
#include "spool_state.h"
#include "lists.h"

#define UNSUB_BODY_MAX 4096 /* a one-click POST body is a few bytes */

/* unsub_cgi.c */
int unsub_cgi_one_click(const char *body, size_t len);

/* unsub_page.c */
void unsub_page_confirm(
    const struct unsub_link *l, const char *pages, int head);
void unsub_page_done(const struct unsub_link *l);
void unsub_page_error(int status, const char *reason,
    const struct unsub_link *l, const char *text, int head);

/* unsub_commit.c */
int unsub_commit(const struct settings *s, const struct unsub_link *l);

#endif
