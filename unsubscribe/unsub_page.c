/*
 * unsub_page.c - what mj_unsubscribe answers, as a CGI response: a
 * status, and a short page that a person can read and a screen reader can
 * follow.  A GET never acts (link scanners fetch every link in a mail):
 * it shows one button that POSTs, as a mailbox provider's one-click does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_esc.h"
#include "cgi_req.h"
#include "unsub.h"

/* unsub_page_head - the status line, headers and the page's start */
static void
unsub_page_head(int status, const char *reason, const char *title, int head)
{
	cgi_headers(status, reason);
	if (head)
		return;
	cgi_page_open();
	html_str(stdout, title);
	printf("</title>\n"
	       "<style>body{font-family:sans-serif;max-width:36em;"
	       "margin:3em auto;padding:0 1em;line-height:1.5}"
	       "button{font-size:1.1em;padding:.5em 1.5em}</style>\n"
	       "</head>\n<body>\n<main>\n<h1>");
	html_str(stdout, title);
	printf("</h1>\n");
}

/* unsub_page_tail - the end of the page */
static void
unsub_page_tail(void)
{
	printf("</main>\n</body>\n</html>\n");
}

/* unsub_page_list - "list@domain", escaped */
static void
unsub_page_list(const struct unsub_link *l)
{
	html_str(stdout, l->list);
	putchar('@');
	html_str(stdout, l->domain);
}

/* unsub_page_mail_route - the way by mail, which needs no link */
static void
unsub_page_mail_route(const struct unsub_link *l)
{
	printf("<p>You can also leave the list by mail: send a message with "
	       "the subject <code>unsubscribe</code> to <a href=\"mailto:");
	html_str(stdout, l->list);
	printf("-request@");
	html_str(stdout, l->domain);
	printf("?subject=unsubscribe\">");
	html_str(stdout, l->list);
	printf("-request@");
	html_str(stdout, l->domain);
	printf("</a>.</p>\n");
}

/* unsub_page_confirm - the GET page: one button that POSTs the
 * one-click form back to the same link */
void
unsub_page_confirm(const struct unsub_link *l, const char *pages, int head)
{
	const char *script = getenv("SCRIPT_NAME");
	const char *query = getenv("QUERY_STRING");

	unsub_page_head(200, "OK", "Unsubscribe", head);
	if (head)
		return;
	printf("<p>Stop sending mail from the list <strong>");
	unsub_page_list(l);
	printf("</strong> to <strong>");
	html_str(stdout, l->addr);
	printf("</strong>?</p>\n<form method=\"post\" action=\"");
	html_str(stdout, script ? script : "");
	putchar('?');
	html_str(stdout, query ? query : "");
	printf(
	    "\">\n<input type=\"hidden\" name=\"List-Unsubscribe\" "
	    "value=\"One-Click\">\n"
	    "<button type=\"submit\" id=\"unsubscribe\">Unsubscribe</button>\n"
	    "</form>\n<p>Nothing changes until you press the button.</p>\n");
	if (pages[0] != '\0') {
		/* The list's pages (mj_listweb) take the same link. */
		printf("<p><a id=\"options\" href=\"");
		html_str(stdout, pages);
		putchar(strchr(pages, '?') != NULL ? '&' : '?');
		html_str(stdout, query ? query : "");
		printf("\">Change how you get the list instead</a></p>\n");
	}
	unsub_page_tail();
}

/* unsub_page_done - the answer to the POST: done, whether or not the
 * address was subscribed (membership is not told to anyone) */
void
unsub_page_done(const struct unsub_link *l)
{
	unsub_page_head(200, "OK", "Unsubscribed", 0);
	printf("<p>");
	html_str(stdout, l->addr);
	printf(" will get no more mail from the list ");
	unsub_page_list(l);
	printf(".</p>\n");
	unsub_page_tail();
}

/* unsub_page_error - a refusal: status, one sentence, and the mail route
 * when the list is known */
void
unsub_page_error(int status, const char *reason, const struct unsub_link *l,
    const char *text, int head)
{
	unsub_page_head(status, reason, reason, head);
	if (head)
		return;
	printf("<p>");
	html_str(stdout, text);
	printf("</p>\n");
	if (l != NULL && l->list[0] != '\0')
		unsub_page_mail_route(l);
	unsub_page_tail();
}
