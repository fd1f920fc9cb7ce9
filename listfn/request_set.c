/*
 * request_set.c - the set command: each, notmetoo, digest, digest-plain
 * or nomail (subs_mode.h) for a subscriber of a list.
 *
 * As subscribe: the command only mails a token, and confirm sets the
 * mode.  The token goes to the address concerned, so nobody changes
 * another's mail by forging a request; an owner of the list may set any
 * subscriber's mode, and then the token goes to the owner (whose mailbox
 * proves the request is the owner's), and the subscriber is told once
 * it is done.  A change into or out of the digests takes effect at an
 * issue boundary (digest_mode.c): every post reaches the reader once.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "digest_mode.h"
#include "lists.h"
#include "log.h"
#include "request_set.h"
#include "request_token.h"

/* request_set - a token for the mode, to the address or to its owner */
int
request_set(struct request *r, const struct cmd *c)
{
	const char *addr = c->addr[0] ? c->addr : r->requester;
	struct listconf lc;
	struct reply *to;
	int member, owner;

	if ((owner = request_list_load(r, c->list, &lc)) != 1)
		return owner;
	if ((member = request_banned(r, c->list, addr, REQUEST_BANNED)) != 0)
		return member == 1 ? 0 : -1;
	owner = strcasecmp(addr, r->requester) != 0 &&
		listconf_in(lc.owners, r->requester);
	if ((member = request_member_reply(
		 r, c->list, addr, owner ? r->requester : addr, &to)) == -1)
		return -1;
	if (!member) {
		fprintf(to->fp, "<%s> is not subscribed to %s@%s.\n\n", addr,
		    c->list, r->m->domain);
		return 0;
	}
	return request_token(r, "set", c->list, addr,
	    subs_mode_name((enum subs_mode)c->mode), to);
}

/* request_set_confirm - set the mode the token names, then spend it */
int
request_set_confirm(struct request *r, const struct cmd *c, const char *text,
    const char *list, const char *addr)
{
	char word[32];
	struct reply *to;
	int mode, ch, spent;

	if (spool_token_field(text, "mode", word, sizeof(word)) == -1 ||
	    (mode = subs_mode_parse(word, strlen(word))) == -1) {
		request_refused(r, c, SPOOL_TOKEN_UNKNOWN);
		return 0;
	}
	if ((ch = digest_mode_set(
		 r->env, r->m, list, addr, (enum subs_mode)mode)) == -1 ||
	    (spent = request_spend(r, c)) == -1)
		return -1;
	if (spent == 1)
		return 0;
	if (ch == 2) {
		fprintf(r->main->fp, "<%s> is not subscribed to %s@%s.\n\n",
		    addr, list, r->m->domain);
		return 0;
	}
	fprintf(r->main->fp, "<%s> %s %s@%s as: %s.\n\n", addr,
	    ch ? "now gets" : "already gets", list, r->m->domain, word);
	/* An owner's change is news to the subscriber. */
	if (ch == 1 && (to = reply_for(&r->rs, addr)) != NULL &&
	    to != r->main) {
		to->notice = 1;
		fprintf(to->fp, "<%s> now gets %s@%s as: %s.\n\n", addr, list,
		    r->m->domain, word);
	}
	return 0;
}
