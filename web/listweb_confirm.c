/*
 * listweb_confirm.c - the page a confirmation mail links to:
 * ?l=L@D&c=TOKEN.  A GET says what the token does and shows one button;
 * the POST (the token again in the body) queues "confirm TOKEN" from
 * the token's address, as if its owner had replied to the mail.  The
 * runner checks the token again and spends it; the page refuses one
 * already spent, expired, unknown, or made for another list, in the
 * same words for the last two.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "listweb.h"
#include "log.h"

/* What a token stands for, read from its file. */
struct listweb_token {
	char action[32], addr[NAME_ADDR_MAX + 1], mode[32];
};

/* listweb_token_ok - 32 lower-case hex digits */
int
listweb_token_ok(const char *t)
{
	size_t i;

	for (i = 0; t[i] != '\0'; i++)
		if (!isdigit((unsigned char)t[i]) && (t[i] < 'a' || t[i] > 'f'))
			return 0;
	return i == SPOOL_TOKEN_LEN;
}

/* listweb_token_text - a token's text, when it is live and this list's:
 * 0, or the status to answer with (403 malformed, unknown or another
 * list's, 410 spent or expired, 503 unreadable) */
int
listweb_token_text(
    const struct listweb *w, const char *token, char *text, size_t size)
{
	char v[NAME_DOMAIN_MAX + 1];
	enum spool_token_status st;

	if (!listweb_token_ok(token))
		return 403;
	if (spool_token_read(w->s->spool_dir, token,
		w->ls->request_token_lifetime, w->now, text, size, &st) == -1)
		return 503;
	if (st == SPOOL_TOKEN_USED || st == SPOOL_TOKEN_EXPIRED)
		return 410;
	if (st != SPOOL_TOKEN_OK ||
	    spool_token_field(text, "list", v, sizeof(v)) == -1 ||
	    strcmp(v, w->list) != 0 ||
	    spool_token_field(text, "domain", v, sizeof(v)) == -1 ||
	    strcmp(v, w->domain) != 0)
		return 403;
	return 0;
}

/* listweb_token_read - the token's fields; 0 good for w's list, else
 * the status to answer with (403 unknown or another list's, 410 spent
 * or expired, 503 unreadable) */
static int
listweb_token_read(
    const struct listweb *w, const char *token, struct listweb_token *t)
{
	char text[SPOOL_TOKEN_TEXT_MAX];
	int r;

	memset(t, 0, sizeof(*t));
	if ((r = listweb_token_text(w, token, text, sizeof(text))) != 0)
		return r;
	if (spool_token_field(text, "action", t->action, sizeof(t->action)) ==
		-1 ||
	    spool_token_field(text, "address", t->addr, sizeof(t->addr)) ==
		-1 ||
	    !name_addr_ok(t->addr))
		return 403;
	if (strcmp(t->action, "set") == 0 &&
	    spool_token_field(text, "mode", t->mode, sizeof(t->mode)) == -1)
		return 403;
	if (strcmp(t->action, "subscribe") != 0 &&
	    strcmp(t->action, "unsubscribe") != 0 &&
	    strcmp(t->action, "set") != 0 && strcmp(t->action, "approve") != 0)
		return 403; /* a moderator's: not for this page */
	return 0;
}

/* listweb_token_what - what confirming does, in words */
static void
listweb_token_what(const struct listweb *w, const struct listweb_token *t)
{
	if (strcmp(t->action, "set") == 0) {
		printf("Deliver the list <strong>");
		listweb_page_listname(w);
		printf("</strong> to <strong>");
		listweb_page_esc(t->addr);
		printf("</strong> as <strong>");
		listweb_page_esc(t->mode);
		printf("</strong>.");
		return;
	}
	printf(strcmp(t->action, "unsubscribe") == 0 ? "Remove <strong>"
						     : "Add <strong>");
	listweb_page_esc(t->addr);
	printf(strcmp(t->action, "unsubscribe") == 0
		   ? "</strong> from the list <strong>"
		   : "</strong> to the list <strong>");
	listweb_page_listname(w);
	printf("</strong>.");
}

/* listweb_confirm_page - the GET: one button */
static void
listweb_confirm_page(
    const struct listweb *w, const struct listweb_token *t, const char *token)
{
	char query[NAME_LIST_MAX + NAME_DOMAIN_MAX + 8];

	listweb_page_head(200, "OK", "Confirm", w->method == CGI_HEAD);
	if (w->method == CGI_HEAD)
		return;
	if ((size_t)snprintf(query, sizeof(query), "l=%s%%40%s", w->list,
		w->domain) >= sizeof(query))
		return; /* cannot be: sized for both */
	printf("<p>");
	listweb_token_what(w, t);
	printf("</p>\n<form");
	listweb_page_action(w, query);
	printf(">\n<input type=\"hidden\" name=\"c\" value=\"");
	listweb_page_esc(token);
	printf("\">\n<button type=\"submit\" id=\"confirm\">Confirm</button>\n"
	       "</form>\n<p>Nothing changes until you press the button. If "
	       "you did not ask for this, close this page.</p>\n");
	listweb_page_foot();
}

/* listweb_confirm - the confirmation page, and its POST */
int
listweb_confirm(struct listweb *w, const char *token)
{
	struct listweb_token t;
	char cmd[SPOOL_TOKEN_LEN + 16];
	int r;

	if ((r = listweb_token_read(w, token, &t)) != 0)
		return listweb_refuse_status(w, r);
	if (w->method != CGI_POST) {
		listweb_confirm_page(w, &t, token);
		return 0;
	}
	if ((r = listweb_rate(w, t.addr)) != 0)
		return listweb_busy(w, r);
	if ((size_t)snprintf(cmd, sizeof(cmd), "confirm %s", token) >=
		sizeof(cmd) ||
	    listweb_queue(w, t.addr, cmd) == -1) {
		log_warn("%s@%s: cannot queue a confirm", w->list, w->domain);
		return listweb_busy(w, 503);
	}
	log_info("%s@%s: confirm of a %s token for <%s> queued", w->list,
	    w->domain, t.action, t.addr);
	listweb_page_head(200, "OK", "Confirmed", 0);
	printf("<p>Thank you. ");
	listweb_token_what(w, &t);
	printf(" A message will tell you when it is done.</p>\n");
	listweb_page_foot();
	return 0;
}
