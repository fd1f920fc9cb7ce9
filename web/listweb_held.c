/*
 * listweb_held.c - the page of a list's held posts: ?l=L@D&q=TOKEN, the
 * link the "held" command mails a moderator (listfn/request_held.c).
 * The token (action moderate-queue) must be this list's and younger
 * than [request] token_lifetime.  The page lists each post still held
 * whose three notice tokens are live (found among the spool's tokens),
 * its sender and subject, linked to its own page (listweb_moderate.c),
 * where the buttons are.  It only reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listweb.h"
#include "spool_name.h"

#define LISTWEB_HELD_SHOWN 500 /* held posts on the page, at most */

/* One held post: its name and its three tokens. */
struct listweb_hp {
	char held[SPOOL_NAME_MAX + 1];
	char tok[3][SPOOL_TOKEN_LEN + 1];
};

/* What the walk over the tokens collects. */
struct listweb_walk {
	const struct listweb *w;
	struct listweb_hp hp[LISTWEB_HELD_SHOWN];
	size_t n;
};

/* listweb_walk_one - a moderation token of this list: its post's slot */
static int
listweb_walk_one(void *arg, const char *token)
{
	static const char *const verbs[3] = {
	    "moderate-approve", "moderate-reject", "moderate-discard"};
	struct listweb_walk *k = arg;
	char text[SPOOL_TOKEN_TEXT_MAX], v[SPOOL_NAME_MAX + 1];
	size_t i;
	int a;

	if (listweb_token_text(k->w, token, text, sizeof(text)) != 0 ||
	    spool_token_field(text, "action", v, sizeof(v)) == -1)
		return 0;
	for (a = 0; a < 3 && strcmp(v, verbs[a]) != 0; a++)
		;
	if (a == 3 || spool_token_field(text, "held", v, sizeof(v)) == -1)
		return 0;
	for (i = 0; i < k->n && strcmp(k->hp[i].held, v) != 0; i++)
		;
	if (i == k->n) {
		if (k->n == LISTWEB_HELD_SHOWN)
			return 0;
		(void)strlcpy(k->hp[i].held, v, sizeof(k->hp[i].held));
		k->n++;
	}
	(void)strlcpy(k->hp[i].tok[a], token, sizeof(k->hp[i].tok[a]));
	return 0;
}

/* listweb_held_cmp - the oldest post first (names start with the time) */
static int
listweb_held_cmp(const void *a, const void *b)
{
	return strcmp(((const struct listweb_hp *)a)->held,
	    ((const struct listweb_hp *)b)->held);
}

/* listweb_held_check - the page's own token: 0, or a status; *owner
 * whether it was mailed to an owner */
static int
listweb_held_check(const struct listweb *w, const char *token, int *owner)
{
	char text[SPOOL_TOKEN_TEXT_MAX], v[NAME_ADDR_MAX + 1];
	int r;

	if ((r = listweb_token_text(w, token, text, sizeof(text))) != 0)
		return r;
	if (spool_token_field(text, "action", v, sizeof(v)) == -1 ||
	    strcmp(v, "moderate-queue") != 0)
		return 403;
	*owner = spool_token_field(text, "owner", v, sizeof(v)) == 0 &&
		 strcmp(v, "yes") == 0;
	return 0;
}

/* listweb_held_queue - the page */
int
listweb_held_queue(struct listweb *w, const char *token)
{
	struct listweb_walk *k;
	size_t i, shown = 0;
	int r, owner = 0;

	if (w->method == CGI_POST)
		return listweb_refuse(w, 405, "Method Not Allowed",
		    "This page only shows; the buttons are on each post's.");
	if ((r = listweb_held_check(w, token, &owner)) != 0)
		return listweb_refuse_status(w, r);
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return listweb_busy(w, 503);
	k->w = w;
	if (spool_token_each(w->s->spool_dir, listweb_walk_one, k) == -1) {
		free(k);
		return listweb_busy(w, 503);
	}
	qsort(k->hp, k->n, sizeof(k->hp[0]), listweb_held_cmp);
	listweb_page_head(200, "OK", "Held posts", w->method == CGI_HEAD);
	if (w->method == CGI_HEAD) {
		free(k);
		return 0;
	}
	printf("<p>Posts to <strong>");
	listweb_page_listname(w);
	printf("</strong> that await a moderator, oldest first.</p>\n");
	for (i = 0; i < k->n; i++) {
		if (!k->hp[i].tok[0][0] || !k->hp[i].tok[1][0] ||
		    !k->hp[i].tok[2][0])
			continue;
		printf("%s<li><a href=\"?l=", shown++ == 0 ? "<ol>\n" : "");
		listweb_page_esc(w->list);
		printf("%%40");
		listweb_page_esc(w->domain);
		printf("&amp;m=%s-%s-%s\">", k->hp[i].tok[0], k->hp[i].tok[1],
		    k->hp[i].tok[2]);
		listweb_held_summary(w, k->hp[i].tok[0]);
		printf("</a></li>\n");
	}
	printf("%s", shown == 0 ? "<p>None.</p>\n" : "</ol>\n");
	if (owner)
		listweb_owner(w);
	listweb_page_foot();
	free(k);
	return 0;
}
