/*
 * request_cmd.c - what each command does.
 *
 * A subscription change never happens on the word of the requester
 * alone: subscribe and unsubscribe only mail a token to the address
 * concerned (double opt-in), and confirm, given that token back, makes
 * the change (or, when the list wants owner approval, mails a second
 * token to the owners).  What a command reveals about an address (its
 * lists, whether it is subscribed) goes to that address, never to a
 * third party.
 */
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bounce_probe.h"
#include "clock.h"
#include "lists.h"
#include "log.h"
#include "moderate_cmd.h"
#include "listfn_msg.h"
#include "request_cmd.h"
#include "request_greet.h"
#include "request_held.h"
#include "request_set.h"
#include "request_token.h"
#include "spool_token.h"

#define REQUEST_INFO_MAX 4096

static const char request_help[] =
    "Commands, one per line, in the Subject or the body (\"end\" or a\n"
    "signature stops reading; for <list>-request the list may be left\n"
    "out):\n"
    "\n"
    "  help                          this text\n"
    "  lists                         the lists of this domain\n"
    "  info <list>                   about a list\n"
    "  subscribe <list> [address]    join (a confirmation is mailed)\n"
    "  unsubscribe <list> [address]  leave (a confirmation is mailed)\n"
    "  which [address]               the lists an address is on\n"
    "  who <list>                    the subscribers (if allowed)\n"
    "  confirm <token>               carry out a confirmed request\n"
    "  enable <list> [token]         delivery to you again, after your\n"
    "                                mailbox bounced (and works again);\n"
    "                                with a probe's token, to the\n"
    "                                address the probe reached\n"
    "  set <list> <mode> [address]   how you get the list (confirmed as\n"
    "                                subscribe is):\n"
    "                                  each          every post\n"
    "                                  notmetoo      every post but your\n"
    "                                                own\n"
    "                                  digest        a MIME digest\n"
    "                                  digest-plain  a plain-text digest\n"
    "                                  nomail        nothing for now, still\n"
    "                                                subscribed\n"
    "  options <list>                a link to your options page (when\n"
    "                                the list has pages)\n"
    "\n"
    "For moderators, with a token from a held post's notice (one in\n"
    "the body counts instead of one in the Subject):\n"
    "\n"
    "  approve <token>               the post goes to the list\n"
    "  reject <token> [reason]       the post goes back to its poster\n"
    "  discard <token>               the post is dropped\n"
    "  held <list>                   a link to the page of the held\n"
    "                                posts (when the list has pages)\n";

/* request_change - subscribe or unsubscribe: a token to the address */
static int
request_change(struct request *r, const struct cmd *c, enum subs_op op)
{
	const char *addr = c->addr[0] ? c->addr : r->requester;
	struct reply *to;
	int member;

	if (!request_list_ok(r, c->list)) {
		fprintf(r->main->fp, "There is no list %s here.\n\n", c->list);
		return 0;
	}
	if (request_ours(r, c->list, addr)) {
		fprintf(r->main->fp, "<%s> is an address of this server.\n\n",
		    addr);
		return 0;
	}
	if (op == SUBS_ADD &&
	    (member = request_banned(r, c->list, addr, REQUEST_NO_SUB)) != 0)
		return member == 1 ? 0 : -1;
	if ((member = request_member_reply(r, c->list, addr, addr, &to)) == -1)
		return -1;
	if (member == (op == SUBS_ADD)) {
		fprintf(to->fp, "<%s> is %s subscribed to %s@%s.\n\n", addr,
		    member ? "already" : "not", c->list, r->m->domain);
		return 0;
	}
	return request_token(r, op == SUBS_ADD ? "subscribe" : "unsubscribe",
	    c->list, addr, NULL, to);
}

/* request_lists - the lists of the domain; with addr, only its own */
static int
request_lists(struct request *r, FILE *fp, const char *addr)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = 0, member;

	if (list_path(dir, sizeof(dir), r->env->s, r->m->domain, NULL, NULL) ==
		-1 ||
	    (d = opendir(dir)) == NULL) {
		fprintf(fp, "No lists.\n\n");
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (!request_list_ok(r, de->d_name))
			continue;
		if (addr != NULL &&
		    (member = subs_edit_member(
			 r->env->s, r->m->domain, de->d_name, addr)) != 1) {
			if (member == -1) {
				closedir(d);
				return -1;
			}
			continue;
		}
		fprintf(fp, "  %s@%s\n", de->d_name, r->m->domain);
		n++;
	}
	closedir(d);
	fprintf(fp, "%s%s.\n\n", n ? "\n" : "", n ? "End of the list" : "None");
	return 0;
}

/* request_info - the list's addresses and its info file */
static int
request_info(struct request *r, const struct cmd *c)
{
	char path[PATH_MAX], buf[REQUEST_INFO_MAX];
	ssize_t n = 0;
	int fd;

	if (!request_list_ok(r, c->list)) {
		fprintf(r->main->fp, "There is no list %s here.\n\n", c->list);
		return 0;
	}
	fprintf(r->main->fp,
	    "List:     %s@%s\nRequests: %s-request@%s\nOwners:   "
	    "%s-owner@%s\n\n",
	    c->list, r->m->domain, c->list, r->m->domain, c->list,
	    r->m->domain);
	if (list_path(path, sizeof(path), r->env->s, r->m->domain, c->list,
		"info") == 0 &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (n > 0)
		fprintf(r->main->fp, "%.*s%s\n", (int)n, buf,
		    buf[n - 1] == '\n' ? "" : "\n");
	return 0;
}

/* request_who_disabled - a disabled subscriber's line: since when, why */
static void
request_who_disabled(FILE *fp, const struct subs_disabled *d)
{
	char day[32];
	time_t t = (time_t)d->since;
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(day, sizeof(day), "%Y-%m-%d", &tm) == 0)
		(void)strlcpy(day, "?", sizeof(day));
	fprintf(fp, "  %s (disabled since %s: %s; %d probe(s) sent)\n", d->addr,
	    day, d->why, d->probes);
}

/* request_who_line - a subscriber's line: its mode when not each, and
 * why its delivery is disabled, if it is */
static void
request_who_line(
    FILE *fp, const struct subs_mode_ent *e, const struct subs_disabled *d)
{
	if (d != NULL)
		request_who_disabled(fp, d);
	else if (e->mode != SUBS_EACH)
		fprintf(fp, "  %s (%s)\n", e->addr, subs_mode_name(e->mode));
	else
		fprintf(fp, "  %s\n", e->addr);
}

/* request_who - the subscribers, to whom the list's who_access allows;
 * the disabled ones and the modes other than each marked */
static int
request_who(struct request *r, const struct cmd *c)
{
	char err[512];
	const struct subs_disabled *d;
	struct subs_disabled *off = NULL;
	struct subs_mode_ent *v;
	struct listconf lc;
	size_t n, i, k, noff = 0;
	int ok;

	if ((ok = request_list_load(r, c->list, &lc)) != 1)
		return ok;
	ok = listconf_in(lc.owners, r->requester);
	if (!ok && strcmp(lc.who_access, "open") == 0)
		ok = 1;
	else if (!ok && strcmp(lc.who_access, "subscribers") == 0 &&
		 (ok = subs_edit_member(
		      r->env->s, r->m->domain, c->list, r->requester)) == -1)
		return -1;
	if (!ok) {
		fprintf(r->main->fp,
		    "The subscribers of %s are not shown to you.\n\n", c->list);
		return 0;
	}
	if (subs_disabled_load(r->env->s, r->m->domain, c->list, &off, &noff) ==
		-1 ||
	    subs_mode_list(r->env->s, r->m->domain, c->list, &v, &n, err,
		sizeof(err)) == -1) {
		free(off);
		return -1;
	}
	for (i = 0, k = 0; i < n; i++) {
		if ((d = subs_disabled_find(off, noff, v[i].addr)) != NULL)
			k++;
		request_who_line(r->main->fp, &v[i], d);
	}
	if (k == 0)
		fprintf(r->main->fp, "\n%zu subscriber(s).\n\n", n);
	else
		fprintf(r->main->fp,
		    "\n%zu subscriber(s), %zu of them disabled after "
		    "bounces.\n\n",
		    n, k);
	free(v);
	free(off);
	return 0;
}

/* request_enable_token - enable <list> <token>: the address the probe
 * with that token went to enabled again, whoever asks (the token shows
 * the probe arrived); another token changes nothing */
static int
request_enable_token(struct request *r, const struct cmd *c)
{
	char addr[NAME_ADDR_MAX + 1];
	int k;

	if ((k = bounce_probe_answer(r->env, r->m, c->list, c->token,
		 "the enable command", addr, sizeof(addr))) == -1)
		return -1;
	if (k == 0)
		fprintf(r->main->fp,
		    "The token %s is not that of a probe of %s out now:\n"
		    "nothing was changed.\n\n",
		    c->token, c->list);
	else
		fprintf(r->main->fp,
		    "Delivery of %s to <%s> is enabled again.\n\n", c->list,
		    addr);
	return 0;
}

/* request_enable - the requester's delivery, disabled after bounces
 * (bounce_probe.c), enabled again: its mailbox works now, it says.  A
 * forged request costs nothing: an address that still bounces is
 * disabled again by its next bounces */
static int
request_enable(struct request *r, const struct cmd *c)
{
	int k;

	if (!request_list_ok(r, c->list)) {
		fprintf(r->main->fp, "There is no list %s here.\n\n", c->list);
		return 0;
	}
	if (c->token[0] != '\0')
		return request_enable_token(r, c);
	if ((k = subs_disabled_drop(
		 r->env->s, r->m->domain, c->list, r->requester)) == -1)
		return -1;
	if (k == 0)
		fprintf(r->main->fp,
		    "Delivery of %s to <%s> is not disabled.\n\n", c->list,
		    r->requester);
	else {
		log_notice("%s: <%s> enabled again on %s@%s by its request",
		    r->m->name, r->requester, c->list, r->m->domain);
		fprintf(r->main->fp,
		    "Delivery of %s to <%s> is enabled again.\n\n", c->list,
		    r->requester);
	}
	return 0;
}

/* request_which - the lists of an address, told to that address */
static int
request_which(struct request *r, const struct cmd *c)
{
	const char *addr = c->addr[0] ? c->addr : r->requester;
	struct reply *to;

	if ((to = reply_for(&r->rs, addr)) == NULL)
		return -1;
	if (to != r->main)
		fprintf(
		    r->main->fp, "The answer was mailed to <%s>.\n\n", addr);
	fprintf(to->fp, "<%s> is subscribed to:\n", addr);
	return request_lists(r, to->fp, addr);
}

/* request_approval - a confirmed subscription waits for an owner */
static int
request_approval(struct request *r, const struct listconf *lc, const char *list,
    const char *addr)
{
	struct reply *to;
	char **v;
	size_t n, i;
	int ok = 0;

	if (listconf_split(lc->owners, &v, &n) == -1)
		return -1;
	for (i = 0; i < n && ok == 0; i++) {
		if ((to = reply_for(&r->rs, v[i])) == NULL) {
			ok = -1;
			break;
		}
		to->notice = 1;
		fprintf(to->fp,
		    "<%s> asks to join %s@%s and has confirmed the address.\n"
		    "As an owner, approve it as below.\n\n",
		    addr, list, r->m->domain);
		ok = request_token(r, "approve", list, addr, NULL, to);
	}
	listconf_free_vec(v, n);
	fprintf(r->main->fp,
	    "%s the owners of %s to approve the subscription of <%s>.\n\n",
	    n ? "Asked" : "Could not ask (the list has none)", list, addr);
	return ok;
}

/* request_confirm - use a token: the change it was issued for, then the
 * token spent; a change that fails leaves the token for the retry */
static int
request_confirm(struct request *r, const struct cmd *c)
{
	char text[SPOOL_TOKEN_TEXT_MAX], action[32],
	    domain[NAME_DOMAIN_MAX + 1];
	char list[NAME_LIST_MAX + 1], addr[SPOOL_ADDR_MAX + 1], err[512];
	enum spool_token_status st;
	struct listconf lc;
	struct reply *to;
	int ch, spent;

	if (spool_token_read(r->env->s->spool_dir, c->token,
		r->env->ls->request_token_lifetime, time(NULL), text,
		sizeof(text), &st) == -1)
		return -1;
	if (st == SPOOL_TOKEN_OK &&
	    (spool_token_field(text, "action", action, sizeof(action)) == -1 ||
		spool_token_field(text, "domain", domain, sizeof(domain)) ==
		    -1 ||
		spool_token_field(text, "list", list, sizeof(list)) == -1 ||
		spool_token_field(text, "address", addr, sizeof(addr)) == -1 ||
		strcmp(domain, r->m->domain) != 0 ||
		!request_list_ok(r, list) ||
		!name_addr_ok(addr))) /* made before the grammar held it */
		st = SPOOL_TOKEN_UNKNOWN;
	if (st != SPOOL_TOKEN_OK) {
		request_refused(r, c, st);
		return 0;
	}
	if (listconf_load(r->env->s, domain, list, &lc, err, sizeof(err)) ==
	    -1) {
		log_warnx("%s: list %s: %s", r->m->name, list, err);
		return -1;
	}
	if (strcmp(action, "unsubscribe") != 0 &&
	    (ch = request_banned(r, list, addr,
		 strcmp(action, "set") == 0 ? REQUEST_BANNED
					    : REQUEST_NO_SUB)) != 0)
		return ch == -1 || request_spend(r, c) == -1 ? -1 : 0;
	if (strcmp(action, "set") == 0)
		return request_set_confirm(r, c, text, list, addr);
	if (strcmp(action, "subscribe") == 0 && lc.subscribe_approval)
		return request_approval(r, &lc, list, addr) == -1 ||
			       request_spend(r, c) == -1
			   ? -1
			   : 0;
	if ((ch = subs_edit(r->env->s, r->env->ls, domain, list,
		 strcmp(action, "unsubscribe") == 0 ? SUBS_REMOVE : SUBS_ADD,
		 addr)) == -1 ||
	    (spent = request_spend(r, c)) == -1)
		return -1;
	if (spent == 1)
		return 0;
	fprintf(r->main->fp, "<%s> is %s %s %s@%s.\n\n", addr,
	    ch ? "now" : "already",
	    strcmp(action, "unsubscribe") == 0 ? "off" : "on", list, domain);
	to = r->main;
	/* An owner's approval is news to the subscriber. */
	if (strcmp(action, "approve") == 0 && ch &&
	    (to = reply_for(&r->rs, addr)) != NULL && to != r->main) {
		to->notice = 1;
		fprintf(to->fp, "<%s> is now subscribed to %s@%s.\n\n", addr,
		    list, domain);
	}
	if (ch && to != NULL)
		(void)request_greet(r->env, r->m, &lc, list,
		    strcmp(action, "unsubscribe") == 0 ? "goodbye" : "welcome",
		    to->fp);
	return 0;
}

/* request_cmd - run one command, its result in the replies; -1 when a
 * transient failure means the whole request must be tried again */
int
request_cmd(struct request *r, const struct cmd *c)
{
	char why[256];

	fprintf(r->main->fp, ">>> %s\n", c->line);
	switch (c->verb) {
	case CMD_UNKNOWN:
		fprintf(r->main->fp, "%s (send \"help\" for the commands).\n\n",
		    cmd_parse_error(c, why, sizeof(why)));
		return 0;
	case CMD_SKIPPED:
		fprintf(r->main->fp, "%s.\n\n", c->error);
		return 0;
	case CMD_HELP:
		fprintf(r->main->fp, "%s\n", request_help);
		return 0;
	case CMD_LISTS:
		return request_lists(r, r->main->fp, NULL);
	case CMD_INFO:
		return request_info(r, c);
	case CMD_SUBSCRIBE:
		return request_change(r, c, SUBS_ADD);
	case CMD_UNSUBSCRIBE:
		return request_change(r, c, SUBS_REMOVE);
	case CMD_WHICH:
		return request_which(r, c);
	case CMD_WHO:
		return request_who(r, c);
	case CMD_CONFIRM:
		return request_confirm(r, c);
	case CMD_ENABLE:
		return request_enable(r, c);
	case CMD_SET:
		return request_set(r, c);
	case CMD_APPROVE:
	case CMD_REJECT:
	case CMD_DISCARD:
		return moderate_cmd(r, c);
	case CMD_HELD:
		return request_held(r, c);
	case CMD_OPTIONS:
		return request_options(r, c);
	}
	return 0;
}
