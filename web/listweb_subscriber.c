/*
 * listweb_subscriber.c - the subscriber's pages.
 *
 *   GET  ?l=L@D                 the list's page: its info, how to post,
 *                               its archive, a subscribe form
 *   POST ?l=L@D  a=ADDR&f=FORM  subscribe: "subscribe L ADDR" queued
 *                               from ADDR, so the runner mails ADDR the
 *                               confirmation token (double opt-in)
 *   GET  ?l=L@D&c=TOKEN         what the token does, and one button
 *   POST ?l=L@D  c=TOKEN        "confirm TOKEN" queued
 *   GET  ?l=L@D&a=&t=&s=        options: the one-click link of a post
 *                               proves the address; a mode, or leave
 *   POST ?l=L@D&a=&t=&s=        do=set&mode=M: "set L M ADDR" queued (the
 *                               runner mails a token to confirm it);
 *                               do=unsubscribe: the one-click request
 *
 * A GET never changes anything (link scanners fetch every link).  The
 * answer to a subscribe is the same sentence for a subscriber and a
 * stranger; only the mail sent to the address says more, and only to
 * its owner.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cgi_query.h"
#include "listweb.h"
#include "log.h"
#include "spool_request.h"

#define LISTWEB_INFO_MAX 4096

/* listweb_refuse - a refusal, logged and answered */
int
listweb_refuse(
    const struct listweb *w, int status, const char *reason, const char *text)
{
	log_notice("refused %s@%s: %d %s", w->list, w->domain, status, text);
	listweb_page_text(status, reason, reason, text, 0);
	return 0;
}

/* listweb_busy - the answer for a rate bound or a spool that failed */
int
listweb_busy(const struct listweb *w, int r)
{
	if (r == 429)
		return listweb_refuse(w, 429, "Too Many Requests",
		    "This address has asked too often; please try again "
		    "later.");
	return listweb_refuse(w, 503, "Service Unavailable",
	    "Too many requests right now; please try again later.");
}

/* listweb_refuse_status - the answer to a token that cannot be used:
 * 410 spent or expired, 403 not valid here, else 503 */
int
listweb_refuse_status(const struct listweb *w, int status)
{
	if (status == 410)
		return listweb_refuse(w, 410, "Gone",
		    "This link has already been used or has expired.");
	if (status == 403)
		return listweb_refuse(
		    w, 403, "Forbidden", "This link is not valid.");
	return listweb_busy(w, 503);
}

/* listweb_info - the list's info file, as preformatted text */
static void
listweb_info(const struct listweb *w)
{
	char path[PATH_MAX], buf[LISTWEB_INFO_MAX + 1];
	ssize_t n = 0;
	int fd;

	if (list_path(path, sizeof(path), w->s, w->domain, w->list, "info") ==
		0 &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, buf, LISTWEB_INFO_MAX);
		(void)close(fd); /* read only */
	}
	if (n <= 0)
		return;
	buf[n] = '\0';
	printf("<p style=\"white-space:pre-wrap\">");
	listweb_page_esc(buf);
	printf("</p>\n");
}

/* listweb_archive - a link to the list's archive (archive_url) */
static void
listweb_archive(const struct listweb *w)
{
	char *buf = NULL, *lt, *gt;
	size_t len = 0;
	FILE *fp;

	if (w->lc.archive_url[0] == '\0' ||
	    (fp = open_memstream(&buf, &len)) == NULL)
		return;
	archive_url_fields(fp, w->lc.archive_url, "", w->list, w->domain, NULL);
	/* Only a web link: never javascript: or data: */
	if (fclose(fp) == 0 && (lt = strchr(buf, '<')) != NULL &&
	    (gt = strchr(lt, '>')) != NULL &&
	    (strncasecmp(lt + 1, "https://", 8) == 0 ||
		strncasecmp(lt + 1, "http://", 7) == 0)) {
		*gt = '\0';
		printf("<p><a href=\"");
		listweb_page_esc(lt + 1);
		printf("\">The list's archive</a></p>\n");
	}
	free(buf);
}

/* listweb_list_page - the list's page with its subscribe form */
int
listweb_list_page(struct listweb *w)
{
	char form[64], query[NAME_LIST_MAX + NAME_DOMAIN_MAX + 8];
	char title[NAME_LIST_MAX + NAME_DOMAIN_MAX + 2];

	if (listweb_form_make(w, form, sizeof(form)) == -1)
		return listweb_busy(w, 503);
	if ((size_t)snprintf(query, sizeof(query), "l=%s%%40%s", w->list,
		w->domain) >= sizeof(query) ||
	    (size_t)snprintf(title, sizeof(title), "%s@%s", w->list,
		w->domain) >= sizeof(title))
		return listweb_busy(w, 503); /* cannot be: sized for both */
	listweb_page_head(200, "OK", title, w->method == CGI_HEAD);
	if (w->method == CGI_HEAD)
		return 0;
	printf("<p>The mailing list <strong>");
	listweb_page_listname(w);
	printf("</strong>.</p>\n");
	listweb_info(w);
	printf("<h2>Posting</h2>\n<p>Subscribers post by writing to "
	       "<a href=\"mailto:");
	listweb_page_listname(w);
	printf("\">");
	listweb_page_listname(w);
	printf("</a>.</p>\n");
	listweb_archive(w);
	printf("<h2>Subscribe</h2>\n<form");
	listweb_page_action(w, query);
	printf(">\n<label for=\"a\">Your address</label>\n"
	       "<input type=\"email\" id=\"a\" name=\"a\" required "
	       "maxlength=\"%d\" autocomplete=\"email\">\n"
	       "<input type=\"hidden\" name=\"f\" value=\"",
	    NAME_ADDR_MAX);
	listweb_page_esc(form);
	printf("\">\n<button type=\"submit\" id=\"subscribe\">Subscribe"
	       "</button>\n</form>\n<p>A message asking you to confirm is "
	       "sent to the address; nothing changes until you do.</p>\n");
	listweb_page_foot();
	return 0;
}

/* listweb_subscribe - the subscribe form, posted */
int
listweb_subscribe(struct listweb *w)
{
	char addr[NAME_ADDR_MAX + 1], form[128];
	char cmd[NAME_LIST_MAX + NAME_ADDR_MAX + 16];
	int r;

	if (cgi_query_field(w->body, "f", form, sizeof(form)) == -1 ||
	    !listweb_form_check(w, form))
		return listweb_refuse(w, 403, "Forbidden",
		    "This form has expired or was not sent from this site; "
		    "please load the page again.");
	if (cgi_query_field(w->body, "a", addr, sizeof(addr)) == -1 ||
	    !name_addr_ok(addr))
		return listweb_refuse(w, 400, "Bad Request",
		    "That is not an address this list can send mail to.");
	if ((r = listweb_rate(w, addr)) != 0)
		return listweb_busy(w, r);
	if ((size_t)snprintf(cmd, sizeof(cmd), "subscribe %s %s", w->list,
		addr) >= sizeof(cmd) ||
	    listweb_queue(w, addr, cmd) == -1) {
		log_warn("%s@%s: cannot queue a subscribe", w->list, w->domain);
		return listweb_busy(w, 503);
	}
	log_info("%s@%s: subscribe of <%s> queued", w->list, w->domain, addr);
	listweb_page_head(200, "OK", "Check your mail", 0);
	printf("<p>If ");
	listweb_page_esc(addr);
	printf(" can join ");
	listweb_page_listname(w);
	printf(", a message asking to confirm is on its way to it. Open the "
	       "link in that message, or reply to it.</p>\n");
	listweb_page_foot();
	return 0;
}
