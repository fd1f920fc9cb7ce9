/*
 * listweb.h - mj_listweb's parts: the page shell and the one answer of each
 * kind (listweb_page.c), the subscriber pages (listweb_subscriber.c), the form
 * tokens and the origin check that stop cross-site requests (listweb_form.c),
 * and the requests committed into the spool (listweb_queue.c).
 */
#ifndef MJQ_LISTWEB_H
#define MJQ_LISTWEB_H

#include <stddef.h>
#include <time.h>

#include "cgi_req.h"
#include "lists.h"
#include "settings.h"
#include "spool_token.h"

#define LISTWEB_BODY_MAX 4096	   /* a form of an address and a token or two */
#define LISTWEB_FORM_LIFETIME 3600 /* seconds a subscribe form is good */

/* What one request knows: the configuration, the list it names, its
 * method, query and body. */
struct listweb {
	const struct settings *s;
	const struct lists_settings *ls;
	const struct unsub_secret *us;
	char list[NAME_LIST_MAX + 1];
	char domain[NAME_DOMAIN_MAX + 1];
	struct listconf lc;
	enum cgi_method method;
	const char *query;
	char body[LISTWEB_BODY_MAX + 1];
	size_t blen;
	time_t now;
};

/* listweb_page.c */
void listweb_page_head(
    int status, const char *reason, const char *title, int head);
void listweb_page_foot(void);
void listweb_page_esc(const char *s);
void listweb_page_listname(const struct listweb *w);
void listweb_page_action(const struct listweb *w, const char *query);
void listweb_page_text(int status, const char *reason, const char *title,
    const char *text, int head);

/* listweb_form.c */
int listweb_form_make(const struct listweb *w, char *out, size_t outlen);
int listweb_form_check(const struct listweb *w, const char *token);

/* listweb_queue.c */
int listweb_rate(const struct listweb *w, const char *addr);
int listweb_queue(
    const struct listweb *w, const char *from, const char *command);

/* listweb_subscriber.c */
int listweb_refuse(
    const struct listweb *w, int status, const char *reason, const char *text);
int listweb_busy(const struct listweb *w, int r);
int listweb_refuse_status(const struct listweb *w, int status);
int listweb_list_page(struct listweb *w);
int listweb_subscribe(struct listweb *w);

/* listweb_confirm.c */
int listweb_token_ok(const char *t);
int listweb_token_text(
    const struct listweb *w, const char *token, char *text, size_t size);
int listweb_confirm(struct listweb *w, const char *token);

/* listweb_moderate.c */
int listweb_moderate(struct listweb *w, const char *m);
void listweb_held_summary(const struct listweb *w, const char *token);

/* listweb_owner.c */
void listweb_owner(const struct listweb *w);

/* listweb_held.c */
int listweb_held_queue(struct listweb *w, const char *token);

/* listweb_options.c */
int listweb_options(struct listweb *w, const struct unsub_link *l);

#endif
