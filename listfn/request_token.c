/*
 * request_token.c - the confirmation tokens a request mails out (a
 * subscription change, a mode, an owner's approval), and the checks each
 * command makes before it acts on a list: used by request_cmd.c and
 * request_set.c alike.
 */
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "clock.h"
#include "lists.h"
#include "log.h"
#include "listfn_msg.h"
#include "request_token.h"
#include "spool_token.h"

/* request_list_ok - the list exists in the message's domain */
int
request_list_ok(struct request *r, const char *list)
{
	char path[PATH_MAX];
	struct stat sb;

	return name_check_list(list) == NULL &&
	       list_path(path, sizeof(path), r->env->s, r->m->domain, list,
		   ".") == 0 &&
	       stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* request_list_load - c's list read into lc: 1; 0 no such list (the
 * reply says so); -1 its configuration cannot be read (logged) */
int
request_list_load(struct request *r, const char *list, struct listconf *lc)
{
	char err[512];

	if (!request_list_ok(r, list)) {
		fprintf(r->main->fp, "There is no list %s here.\n\n", list);
		return 0;
	}
	if (listconf_load(
		r->env->s, r->m->domain, list, lc, err, sizeof(err)) == -1) {
		log_warnx("%s: list %s: %s", r->m->name, list, err);
		return -1;
	}
	return 1;
}

/* request_member_reply - the reply that goes to to_addr (the main
 * reply says a confirmation was mailed to addr when it is another one)
 * in *to, and whether addr is subscribed to list: 1, 0, or -1 error */
int
request_member_reply(struct request *r, const char *list, const char *addr,
    const char *to_addr, struct reply **to)
{
	int member;

	if ((*to = reply_for(&r->rs, to_addr)) == NULL ||
	    (member = subs_edit_member(r->env->s, r->m->domain, list, addr)) ==
		-1)
		return -1;
	if (*to != r->main)
		fprintf(r->main->fp,
		    "Your request was mailed to <%s> for confirmation.\n\n",
		    addr);
	return member;
}

/* request_local_ours - a local part (owner- aside) that is majordomo or
 * begins with the list's name */
static int
request_local_ours(const char *local, const char *list)
{
	if (strncasecmp(local, "owner-", 6) == 0)
		local += 6;
	return strcasecmp(local, "majordomo") == 0 ||
	       strncasecmp(local, list, strlen(list)) == 0;
}

/* request_ours - addr is one of this server's own addresses, in any
 * disguise: a list must never be subscribed to itself or to majordomo.
 * Case, a +detail, a trailing dot of the domain and the owner- prefix
 * aside, a local part at the request's domain that is majordomo or
 * begins with the list's name (the list, its -owner, -request and VERP
 * addresses) is ours. */
int
request_ours(const struct request *r, const char *list, const char *addr)
{
	char local[NAME_ADDR_MAX + 1];
	const char *at = strrchr(addr, '@');
	size_t n, dlen;

	if (at == NULL || (n = (size_t)(at - addr)) >= sizeof(local))
		return 0;
	dlen = strlen(at + 1);
	if (dlen > 0 && at[dlen] == '.')
		dlen--;
	if (dlen != strlen(r->m->domain) ||
	    strncasecmp(at + 1, r->m->domain, dlen) != 0)
		return 0;
	memcpy(local, addr, n);
	local[n] = '\0';
	if (request_local_ours(local, list))
		return 1;
	local[strcspn(local, "+")] = '\0'; /* a +detail off */
	return request_local_ours(local, list);
}

/* request_banned - a ban of the list or the server covers addr: the
 * main reply says so (the pattern itself is the owners' business) */
int
request_banned(
    struct request *r, const char *list, const char *addr, const char *verb)
{
	char pat[BANS_PATTERN_MAX];
	int k;

	if ((k = bans_check(r->env->s, r->m->domain, list, addr, pat,
		 sizeof(pat))) == -1) {
		log_warnx("%s: cannot read the bans of %s", r->m->name, list);
		return -1;
	}
	if (k == 1) {
		log_notice("%s: <%s> refused on %s@%s: banned (%s)", r->m->name,
		    addr, list, r->m->domain, pat);
		fprintf(r->main->fp, "<%s> %s %s@%s.\n\n", addr, verb, list,
		    r->m->domain);
	}
	return k;
}

/* request_token_what - what the token does, in words */
static void
request_token_what(char *buf, size_t len, const char *action, const char *addr,
    const char *mode, const char *list, const char *domain)
{
	if (strcmp(action, "set") == 0)
		snprintf(buf, len, "set how <%s> gets the list %s@%s to \"%s\"",
		    addr, list, domain, mode);
	else if (strcmp(action, "unsubscribe") == 0)
		snprintf(buf, len, "remove <%s> from the list %s@%s", addr,
		    list, domain);
	else
		snprintf(
		    buf, len, "add <%s> to the list %s@%s", addr, list, domain);
}

/* request_token_page - the link to the list's confirmation page
 * (mj_listweb), when the list has pages_url: a GET of it shows one
 * button, so a scanner that follows it confirms nothing */
static void
request_token_page(
    struct request *r, const char *list, const char *token, struct reply *to)
{
	struct listconf lc;
	char err[512];

	if (listconf_load(
		r->env->s, r->m->domain, list, &lc, err, sizeof(err)) == -1 ||
	    lc.pages_url[0] == '\0')
		return;
	fprintf(to->fp,
	    "Or open this page and press its Confirm button:\n"
	    "\n"
	    "%s%sl=%s%%40%s&c=%s\n"
	    "\n",
	    lc.pages_url, strchr(lc.pages_url, '?') != NULL ? "&" : "?", list,
	    r->m->domain, token);
}

/* request_token - a token for action on list and addr (and mode, for
 * set) mailed to addr (or the list's owners, for approval, or the owner
 * who sets a subscriber's mode); none when the reply rate limit keeps
 * that message back; 0 or -1 */
int
request_token(struct request *r, const char *action, const char *list,
    const char *addr, const char *mode, struct reply *to)
{
	char text[SPOOL_TOKEN_TEXT_MAX], token[SPOOL_TOKEN_LEN + 1], life[64];
	char what[600];
	int n;

	if ((n = reply_rate(r->env, r->m, to)) != 1)
		return n;
	n = snprintf(text, sizeof(text),
	    "action %s\ndomain %s\nlist %s\naddress %s\nrequester %s\n%s%s%s",
	    action, r->m->domain, list, addr, r->requester, mode ? "mode " : "",
	    mode ? mode : "", mode ? "\n" : "");
	if (n < 0 || (size_t)n >= sizeof(text) ||
	    spool_token_create(r->env->s->spool_dir, text, (size_t)n, token,
		sizeof(token)) == -1) {
		log_warn("%s: cannot create a token", r->m->name);
		return -1;
	}
	spool_token_sweep(r->env->s->spool_dir,
	    r->env->ls->request_token_lifetime, time(NULL));
	(void)strlcpy(to->token, token, sizeof(to->token)); /* it fits */
	to->ntokens++;
	clock_span_words(
	    r->env->ls->request_token_lifetime, life, sizeof(life));
	request_token_what(
	    what, sizeof(what), action, addr, mode, list, r->m->domain);
	fprintf(to->fp,
	    "Someone (%s) asked to %s.\n"
	    "To confirm, reply to this message, or send a message to\n"
	    "%s with this line:\n"
	    "\n"
	    "confirm %s\n"
	    "\n",
	    r->requester, what, r->rs.from, token);
	request_token_page(r, list, token, to);
	fprintf(to->fp,
	    "The request expires in %s.  If you did not ask for\n"
	    "this, ignore this message: nothing changes without it.\n\n",
	    life);
	return 0;
}

/* request_refused - say why a token cannot be used */
void
request_refused(
    struct request *r, const struct cmd *c, enum spool_token_status st)
{
	log_notice("%s: confirm from <%s>: token %s", r->m->name, r->requester,
	    spool_token_why(st));
	fprintf(
	    r->main->fp, "The token %s %s.\n\n", c->token, spool_token_why(st));
}

/* request_spend - spend the token whose change has just committed: 0, or
 * 1 when another runner spent it first (told in the reply), -1 on I/O
 * errors (the request is tried again; the change was idempotent) */
int
request_spend(struct request *r, const struct cmd *c)
{
	enum spool_token_status st;

	if (spool_token_use(r->env->s->spool_dir, c->token, &st) == -1) {
		log_warn("%s: cannot spend token %s", r->m->name, c->token);
		return -1;
	}
	if (st == SPOOL_TOKEN_OK)
		return 0;
	request_refused(r, c, st);
	return 1;
}
