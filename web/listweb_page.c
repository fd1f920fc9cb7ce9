/*
 * listweb_page.c - the shell of mj_listweb's pages, as a CGI response: a
 * status, headers that forbid scripts, frames and remote content, and an
 * HTML5 page readable on a phone.  Every byte that comes from a request,
 * a list's configuration or a token reaches a page through the archive's
 * one escaping function (html_esc), as text or inside a
 * double-quoted attribute.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "cgi_req.h"
#include "listweb.h"

/* listweb_page_esc - text, escaped, to stdout */
void
listweb_page_esc(const char *s)
{
	html_str(stdout, s);
}

/* listweb_page_head - the status line, headers and the page's start */
void
listweb_page_head(int status, const char *reason, const char *title, int head)
{
	cgi_headers(status, reason);
	if (head)
		return;
	cgi_page_open();
	listweb_page_esc(title);
	printf("</title>\n"
	       "<style>:root{color-scheme:light dark}"
	       "body{font-family:sans-serif;max-width:38em;margin:2em auto;"
	       "padding:0 1em;line-height:1.5}"
	       "input[type=email]{font-size:1em;padding:.4em;width:100%%;"
	       "max-width:24em;box-sizing:border-box}"
	       "button{font-size:1.05em;padding:.45em 1.3em;margin:.3em 0}"
	       "fieldset{border:1px solid #888;margin:1em 0}"
	       "label{display:block;margin:.2em 0}</style>\n"
	       "</head>\n<body>\n<main>\n<h1>");
	listweb_page_esc(title);
	printf("</h1>\n");
}

/* listweb_page_foot - the end of the page */
void
listweb_page_foot(void)
{
	printf("</main>\n</body>\n</html>\n");
}

/* listweb_page_listname - "list@domain", escaped */
void
listweb_page_listname(const struct listweb *w)
{
	listweb_page_esc(w->list);
	putchar('@');
	listweb_page_esc(w->domain);
}

/* listweb_page_action - a form's action: this program with query */
void
listweb_page_action(const struct listweb *w, const char *query)
{
	const char *script = getenv("SCRIPT_NAME");

	(void)w;
	printf(" method=\"post\" action=\"");
	listweb_page_esc(script ? script : "");
	putchar('?');
	listweb_page_esc(query);
	printf("\"");
}

/* listweb_page_text - a whole page of one sentence */
void
listweb_page_text(int status, const char *reason, const char *title,
    const char *text, int head)
{
	listweb_page_head(status, reason, title, head);
	if (head)
		return;
	printf("<p>");
	listweb_page_esc(text);
	printf("</p>\n");
	listweb_page_foot();
}
