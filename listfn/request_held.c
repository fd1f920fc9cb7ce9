/*
 * request_held.c - "held <list>": a moderator (or owner, when the list
 * names no moderators) gets a link to mj_listweb's page of the list's
 * held posts, carrying a token (action moderate-queue) that is good for
 * [request] token_lifetime and lets its holder see the queue and open
 * each post's page, as the notices' links do; an owner's also shows the
 * owner's read-only view of the list (web/listweb_owner.c).  Anyone else learns
 * only that the command is for moderators; a list without pages_url says the
 * page is not set up.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "lists.h"
#include "log.h"
#include "request_held.h"
#include "request_token.h"
#include "spool_token.h"

/* request_held - the link, to a moderator */
int
request_held(struct request *r, const struct cmd *c)
{
	char text[SPOOL_TOKEN_TEXT_MAX], token[SPOOL_TOKEN_LEN + 1], life[64];
	struct listconf lc;
	int n;

	if ((n = request_list_load(r, c->list, &lc)) != 1)
		return n == 0 ? 0 : -1;
	if (!posting_is_moderator(&lc, r->requester)) {
		fprintf(r->main->fp,
		    "Only the moderators of %s@%s can see its held posts.\n\n",
		    c->list, r->m->domain);
		return 0;
	}
	if (lc.pages_url[0] == '\0') {
		fprintf(r->main->fp,
		    "%s@%s has no web pages (pages_url); each held post's "
		    "notice has its commands.\n\n",
		    c->list, r->m->domain);
		return 0;
	}
	n = snprintf(text, sizeof(text),
	    "action %s\ndomain %s\nlist %s\naddress %s\nowner %s\n",
	    REQUEST_HELD_ACTION, r->m->domain, c->list, r->requester,
	    listconf_in(lc.owners, r->requester) ? "yes" : "no");
	if (n < 0 || (size_t)n >= sizeof(text) ||
	    spool_token_create(r->env->s->spool_dir, text, (size_t)n, token,
		sizeof(token)) == -1) {
		log_warn("%s: cannot create a token", r->m->name);
		return -1;
	}
	clock_span_words(
	    r->env->ls->request_token_lifetime, life, sizeof(life));
	fprintf(r->main->fp,
	    "The posts held for %s@%s, each with its buttons:\n\n"
	    "%s%sl=%s%%40%s&q=%s\n\n"
	    "The link works for %s; do not pass it on.\n\n",
	    c->list, r->m->domain, lc.pages_url,
	    strchr(lc.pages_url, '?') != NULL ? "&" : "?", c->list,
	    r->m->domain, token, life);
	log_info("%s: held-posts link for %s mailed to <%s>", r->m->name,
	    c->list, r->requester);
	return 0;
}

/* request_options - options <list>: the requester's own options link
 * (the one-click link's query on pages_url), mailed to the requester
 * only, whether or not it is subscribed (the page tells nobody) */
int
request_options(struct request *r, const struct cmd *c)
{
	char link[2048], err[512];
	struct unsub_secret us;
	struct unsub_maker *mk;
	struct listconf lc;
	int n;

	if ((n = request_list_load(r, c->list, &lc)) != 1)
		return n == 0 ? 0 : -1;
	if (lc.pages_url[0] == '\0') {
		fprintf(r->main->fp,
		    "%s@%s has no web pages; \"set %s <mode>\" changes how "
		    "you get it.\n\n",
		    c->list, r->m->domain, c->list);
		return 0;
	}
	if (unsub_secret_load(&us, r->env->ls->unsubscribe_secret_file, err,
		sizeof(err)) == -1) {
		log_warnx("%s: options link: %s", r->m->name, err);
		return -1;
	}
	if ((mk = unsub_maker_new(&us)) == NULL)
		return -1;
	n = unsub_link_make(mk, lc.pages_url, c->list, r->m->domain,
	    r->requester, (long long)time(NULL), link, sizeof(link));
	unsub_maker_free(mk);
	if (n == -1)
		return -1;
	fprintf(r->main->fp,
	    "How %s gets %s@%s (each post, a digest, nothing for now)\n"
	    "and leaving it, on this page:\n\n%s\n\n",
	    r->requester, c->list, r->m->domain, link);
	return 0;
}
