/*
 * listweb_moderate.c - the page a moderator notice links to:
 * ?l=L@D&m=APPROVE-REJECT-DISCARD, the notice's three tokens
 * (listfn/moderate.c).  A GET shows the held post safely (its sender,
 * subject, date, why it was held, and its text escaped by the archive's
 * function, addresses obfuscated, no markup, nothing remote) with three
 * buttons; a POST queues "approve TOKEN", "reject TOKEN reason" or
 * "discard TOKEN" to list-request, from list-owner (its answer goes to
 * the owners), and the runner does the rest as for a reply by mail
 * (moderate_cmd.c), spending the token.  The tokens are the authority,
 * as they are by mail; a page never shows a post whose tokens do not
 * all verify for this list and name the same held post.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgi_query.h"
#include "archive.h"
#include "listweb.h"
#include "log.h"
#include "spool_name.h"
#include "spool_path.h"
#include "spool_why.h"

#define LISTWEB_HELD_MAX 65536 /* bytes of a held post shown */
#define LISTWEB_REASON_MAX 200 /* bytes of a rejection's reason */

static const char *const listweb_verbs[3] = {"approve", "reject", "discard"};

/* A held post, as its tokens name it. */
struct listweb_held {
	char tok[3][SPOOL_TOKEN_LEN + 1];
	char held[SPOOL_NAME_MAX + 1];
	char path[PATH_MAX];
};

/* listweb_held_token - token i's file agrees with w's list and h:
 * 0, or the status to answer with */
static int
listweb_held_token(const struct listweb *w, struct listweb_held *h, int i)
{
	char text[SPOOL_TOKEN_TEXT_MAX], v[SPOOL_NAME_MAX + 1], want[40];
	char dp[8], lp[8], *e1, *e2;
	long dprio, lprio;
	int r;

	if ((r = listweb_token_text(w, h->tok[i], text, sizeof(text))) != 0)
		return r;
	(void)snprintf(want, sizeof(want), "moderate-%s", listweb_verbs[i]);
	if (spool_token_field(text, "action", v, sizeof(v)) == -1 ||
	    strcmp(v, want) != 0 ||
	    spool_token_field(text, "held", v, sizeof(v)) == -1 ||
	    (i > 0 && strcmp(v, h->held) != 0) ||
	    spool_token_field(text, "dprio", dp, sizeof(dp)) == -1 ||
	    spool_token_field(text, "lprio", lp, sizeof(lp)) == -1)
		return 403;
	dprio = strtol(dp, &e1, 10);
	lprio = strtol(lp, &e2, 10);
	if (*e1 != '\0' || *e2 != '\0' || dprio < 0 || dprio > SPOOL_PRIO_MAX ||
	    lprio < 0 || lprio > SPOOL_PRIO_MAX)
		return 403;
	if (i > 0)
		return 0;
	(void)strlcpy(h->held, v, sizeof(h->held)); /* same size */
	if (spool_message_path(h->path, sizeof(h->path), w->s->spool_dir,
		SPOOL_HOLD, (int)dprio, w->domain, (int)lprio, SPOOL_FN_LIST,
		h->held) == -1)
		return 403;
	return 0;
}

/* listweb_held_parse - "A-R-D" into h, each verified; 0 or a status */
static int
listweb_held_parse(
    const struct listweb *w, const char *m, struct listweb_held *h)
{
	int i, r;

	memset(h, 0, sizeof(*h));
	if (strlen(m) != 3 * SPOOL_TOKEN_LEN + 2 || m[SPOOL_TOKEN_LEN] != '-' ||
	    m[2 * SPOOL_TOKEN_LEN + 1] != '-')
		return 403;
	for (i = 0; i < 3; i++) {
		memcpy(
		    h->tok[i], m + i * (SPOOL_TOKEN_LEN + 1), SPOOL_TOKEN_LEN);
		if (!listweb_token_ok(h->tok[i]) ||
		    (r = listweb_held_token(w, h, i)) != 0)
			return listweb_token_ok(h->tok[i]) ? r : 403;
	}
	return 0;
}

/* listweb_held_field - a header of the post, escaped, in a <dd> */
static void
listweb_held_field(const char *text, size_t len, const char *name)
{
	char v[1024];

	printf("<dt>%s</dt><dd>", name);
	if (header_value(text, len, name, v, sizeof(v)) == 0)
		archive_html_plain(stdout, v, strlen(v));
	printf("</dd>\n");
}

/* listweb_held_summary - "Subject (From)" of the post an approve token
 * names, escaped */
void
listweb_held_summary(const struct listweb *w, const char *token)
{
	char text[8192], subj[512], from[512];
	struct listweb_held h;
	ssize_t n = -1;
	int fd;

	memset(&h, 0, sizeof(h));
	(void)strlcpy(h.tok[0], token, sizeof(h.tok[0])); /* same size */
	if (listweb_held_token(w, &h, 0) == 0 &&
	    (fd = open(h.path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, text, sizeof(text) - 1);
		(void)close(fd); /* read only */
	}
	if (n < 0)
		n = 0;
	text[n] = '\0';
	if (header_value(text, (size_t)n, "Subject", subj, sizeof(subj)) == -1)
		(void)strlcpy(subj, "(no subject)", sizeof(subj));
	if (header_value(text, (size_t)n, "From", from, sizeof(from)) == -1)
		from[0] = '\0';
	archive_html_plain(stdout, subj, strlen(subj));
	printf(" (");
	archive_html_plain(stdout, from, strlen(from));
	printf(")");
}

/* listweb_held_part - one part of the held post as the archive shows
 * it: its text (UTF-8, quotes set apart, an HTML-only post through its
 * text), an attachment by its name and type only, never served */
static int
listweb_held_part(void *arg, const struct archive_body_part *bp)
{
	(void)arg;
	if (bp->kind == ARCHIVE_BODY_TEXT) {
		archive_html_text(stdout, bp->data, bp->len);
		return 0;
	}
	printf("<p>Attachment %d: ", bp->n);
	archive_html_plain(stdout, bp->name, strlen(bp->name));
	printf(" (");
	archive_html_plain(stdout, bp->type, strlen(bp->type));
	printf(", %zu bytes)</p>\n", bp->len);
	return 0;
}

/* listweb_held_show - the post: headers, why, its text */
static int
listweb_held_show(const struct listweb *w, const struct listweb_held *h)
{
	char *text, why[SPOOL_WHY_MAX];
	ssize_t n;
	size_t len = 0;
	time_t when;
	int fd;

	if ((fd = open(h->path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 410 : 503;
	if ((text = malloc(LISTWEB_HELD_MAX + 1)) == NULL) {
		(void)close(fd); /* read only */
		return 503;
	}
	while (len < LISTWEB_HELD_MAX &&
	       (n = read(fd, text + len, LISTWEB_HELD_MAX - len)) > 0)
		len += (size_t)n;
	(void)close(fd); /* read only */
	text[len] = '\0';
	if (spool_why_read(h->path, why, sizeof(why), &when) == -1)
		(void)strlcpy(why, "(not recorded)", sizeof(why));
	listweb_page_head(200, "OK", "A held post", 0);
	printf("<p>A post to <strong>");
	listweb_page_listname(w);
	printf("</strong> awaits a moderator.</p>\n<dl>\n");
	listweb_held_field(text, len, "From");
	listweb_held_field(text, len, "Subject");
	listweb_held_field(text, len, "Date");
	printf("<dt>Held because</dt><dd>");
	archive_html_plain(stdout, why, strlen(why));
	printf("</dd>\n</dl>\n<h2>The post</h2>\n"
	       "<div style=\"border-left:3px solid #888;padding-left:1em;"
	       "overflow-wrap:anywhere\">");
	if (archive_body_each(text, len, listweb_held_part, NULL) == -1)
		printf("<p>(the post cannot be shown)</p>\n");
	printf("</div>\n%s", len == LISTWEB_HELD_MAX ? "<p>(cut)</p>\n" : "");
	free(text);
	return 0;
}

/* listweb_held_forms - the three buttons */
static void
listweb_held_forms(const struct listweb *w)
{
	printf("<form");
	listweb_page_action(w, w->query);
	printf(">\n<input type=\"hidden\" name=\"do\" value=\"approve\">\n"
	       "<button type=\"submit\" id=\"approve\">Approve</button>\n"
	       "</form>\n<form");
	listweb_page_action(w, w->query);
	printf(">\n<input type=\"hidden\" name=\"do\" value=\"reject\">\n"
	       "<label for=\"reason\">Reason (sent to the poster)</label>\n"
	       "<input type=\"text\" id=\"reason\" name=\"reason\" "
	       "maxlength=\"%d\">\n"
	       "<button type=\"submit\" id=\"reject\">Reject</button>\n"
	       "</form>\n<form",
	    LISTWEB_REASON_MAX);
	listweb_page_action(w, w->query);
	printf(">\n<input type=\"hidden\" name=\"do\" value=\"discard\">\n"
	       "<button type=\"submit\" id=\"discard\">Discard</button>\n"
	       "</form>\n");
}

/* listweb_moderate - the held post's page, and its POSTs */
int
listweb_moderate(struct listweb *w, const char *m)
{
	char what[16], reason[LISTWEB_REASON_MAX + 1], from[NAME_ADDR_MAX + 1];
	char cmd[LISTWEB_REASON_MAX + SPOOL_TOKEN_LEN + 16];
	struct listweb_held h;
	int i, r;

	if ((r = listweb_held_parse(w, m, &h)) != 0 ||
	    (w->method != CGI_POST && (r = listweb_held_show(w, &h)) != 0))
		return listweb_refuse_status(w, r);
	if (w->method != CGI_POST) {
		listweb_held_forms(w);
		listweb_page_foot();
		return 0;
	}
	if (cgi_query_field(w->body, "do", what, sizeof(what)) == -1)
		what[0] = '\0';
	for (i = 0; i < 3 && strcmp(what, listweb_verbs[i]) != 0; i++)
		;
	if (i == 3)
		return listweb_refuse(
		    w, 400, "Bad Request", "Nothing was asked.");
	/* One line of text: a CR or LF (never from a browser's text
	 * field) is refused by the decoder, and so is the request. */
	if (strstr(w->body, "reason=") != NULL &&
	    cgi_query_field(w->body, "reason", reason, sizeof(reason)) == -1)
		return listweb_refuse(w, 400, "Bad Request",
		    "The reason must be one line of at most 200 bytes.");
	if (strstr(w->body, "reason=") == NULL)
		reason[0] = '\0';
	if ((size_t)snprintf(from, sizeof(from), "%s-owner@%s", w->list,
		w->domain) >= sizeof(from) ||
	    (size_t)snprintf(cmd, sizeof(cmd), "%s %s%s%s", what, h.tok[i],
		i == 1 && reason[0] ? " " : "",
		i == 1 ? reason : "") >= sizeof(cmd))
		return listweb_busy(w, 503);
	if ((r = listweb_rate(w, from)) != 0)
		return listweb_busy(w, r);
	if (listweb_queue(w, from, cmd) == -1) {
		log_warn("%s@%s: cannot queue a %s", w->list, w->domain, what);
		return listweb_busy(w, 503);
	}
	log_info(
	    "%s@%s: %s of held %s queued", w->list, w->domain, what, h.held);
	listweb_page_head(200, "OK", "Done", 0);
	printf("<p>The post will be %s. The list's owners get the answer "
	       "by mail.</p>\n",
	    i == 0   ? "sent to the list"
	    : i == 1 ? "returned to its poster"
		     : "dropped");
	listweb_page_foot();
	return 0;
}
