/*
 * listweb_options.c - a subscriber's options: ?l=L@D&a=ADDR&t=T&s=MAC,
 * the one-click link every copy of a post carries (lists/unsub_link.c),
 * which proves the address: only its mailbox got it.  A GET shows the
 * delivery modes and the unsubscribe button; a POST of do=set queues
 * "set L MODE ADDR" from the address (the runner mails a token to
 * confirm it, as for the mail command), and do=unsubscribe queues the
 * one-click request mj_unsubscribe would (request_one_click.c).
 */
#include <stdio.h>
#include <string.h>

#include "cgi_query.h"
#include "listweb.h"
#include "log.h"
#include "spool_request.h"

static const char *const listweb_modes[][2] = {
    {"each", "Every post, as it is sent"},
    {"digest", "A digest (MIME) of the posts"},
    {"digest-plain", "A plain-text digest of the posts"},
    {"nomail", "Nothing for now (stay subscribed)"},
};
#define LISTWEB_NMODES (sizeof(listweb_modes) / sizeof(listweb_modes[0]))

/* listweb_options_page - the GET: the modes and unsubscribe */
static void
listweb_options_page(const struct listweb *w, const struct unsub_link *l)
{
	size_t i;

	listweb_page_head(
	    200, "OK", "Your subscription", w->method == CGI_HEAD);
	if (w->method == CGI_HEAD)
		return;
	printf("<p>How the list <strong>");
	listweb_page_listname(w);
	printf("</strong> reaches <strong>");
	listweb_page_esc(l->addr);
	printf("</strong>.</p>\n<form");
	listweb_page_action(w, w->query);
	printf(">\n<fieldset>\n<legend>Delivery</legend>\n");
	for (i = 0; i < LISTWEB_NMODES; i++)
		printf("<label><input type=\"radio\" name=\"mode\" "
		       "value=\"%s\" id=\"mode-%s\"%s> %s</label>\n",
		    listweb_modes[i][0], listweb_modes[i][0],
		    i == 0 ? " required" : "", listweb_modes[i][1]);
	printf(
	    "</fieldset>\n<input type=\"hidden\" name=\"do\" value=\"set\">\n"
	    "<button type=\"submit\" id=\"set\">Change delivery</button>\n"
	    "</form>\n<h2>Leave the list</h2>\n<form");
	listweb_page_action(w, w->query);
	printf(">\n<input type=\"hidden\" name=\"do\" value=\"unsubscribe\">\n"
	       "<button type=\"submit\" id=\"unsubscribe\">Unsubscribe"
	       "</button>\n</form>\n");
	listweb_page_foot();
}

/* listweb_options_set - do=set: a token to confirm the mode, mailed */
static int
listweb_options_set(struct listweb *w, const struct unsub_link *l)
{
	char mode[32], cmd[NAME_LIST_MAX + NAME_ADDR_MAX + 64];
	size_t i;
	int r;

	for (i = 0; i < LISTWEB_NMODES; i++)
		if (cgi_query_field(w->body, "mode", mode, sizeof(mode)) == 0 &&
		    strcmp(mode, listweb_modes[i][0]) == 0)
			break;
	if (i == LISTWEB_NMODES)
		return listweb_refuse(
		    w, 400, "Bad Request", "Choose one of the delivery modes.");
	if ((r = listweb_rate(w, l->addr)) != 0)
		return listweb_busy(w, r);
	if ((size_t)snprintf(cmd, sizeof(cmd), "set %s %s %s", w->list, mode,
		l->addr) >= sizeof(cmd) ||
	    listweb_queue(w, l->addr, cmd) == -1) {
		log_warn("%s@%s: cannot queue a set", w->list, w->domain);
		return listweb_busy(w, 503);
	}
	log_info(
	    "%s@%s: set %s for <%s> queued", w->list, w->domain, mode, l->addr);
	listweb_page_head(200, "OK", "Check your mail", 0);
	printf("<p>A message asking you to confirm the change to <strong>");
	listweb_page_esc(mode);
	printf("</strong> is on its way to ");
	listweb_page_esc(l->addr);
	printf(".</p>\n");
	listweb_page_foot();
	return 0;
}

/* listweb_options_leave - do=unsubscribe: the one-click request */
static int
listweb_options_leave(struct listweb *w, const struct unsub_link *l)
{
	char text[2048];
	int n, r;

	if ((r = listweb_rate(w, l->addr)) != 0)
		return listweb_busy(w, r);
	if ((n = unsub_link_request(
		 l, "mj_listweb", w->now, text, sizeof(text))) == -1 ||
	    spool_request_commit(w->s->spool_dir, w->domain, w->list, text,
		(size_t)n, w->now) == -1) {
		log_warn(
		    "%s@%s: cannot queue an unsubscribe", w->list, w->domain);
		return listweb_busy(w, 503);
	}
	log_info(
	    "%s@%s: unsubscribe of <%s> queued", w->list, w->domain, l->addr);
	listweb_page_head(200, "OK", "Unsubscribed", 0);
	printf("<p>");
	listweb_page_esc(l->addr);
	printf(" will get no more mail from the list ");
	listweb_page_listname(w);
	printf(".</p>\n");
	listweb_page_foot();
	return 0;
}

/* listweb_options - the options page, and its POSTs */
int
listweb_options(struct listweb *w, const struct unsub_link *l)
{
	char what[32];

	switch (unsub_token_check(w->us, l->list, l->domain, l->addr, l->issued,
	    l->mac, w->now, w->ls->unsubscribe_token_lifetime)) {
	case UNSUB_FORGED:
		return listweb_refuse(
		    w, 403, "Forbidden", "This link is not valid.");
	case UNSUB_EXPIRED:
		return listweb_refuse(w, 410, "Gone",
		    "This link has expired; the link in a newer post works.");
	case UNSUB_OK:
		break;
	}
	if (w->method != CGI_POST) {
		listweb_options_page(w, l);
		return 0;
	}
	if (cgi_query_field(w->body, "do", what, sizeof(what)) == -1)
		what[0] = '\0';
	if (strcmp(what, "set") == 0)
		return listweb_options_set(w, l);
	if (strcmp(what, "unsubscribe") == 0)
		return listweb_options_leave(w, l);
	return listweb_refuse(w, 400, "Bad Request", "Nothing was asked.");
}
