/*
 * moderate_cmd.c - the moderators' commands to <list>-request: approve,
 * reject [reason] and discard, each with a token from a held post's
 * notice (moderate.c).
 *
 * The token is the authority: whoever holds it acts, and the log line
 * names the address that did.  It must have been issued for this action
 * and this list (a token of another list, sent to this list's -request,
 * is refused).  The order makes a token work once and never be spent on
 * a change that did not happen:
 *   1. the token is read, not spent (spool_token_read)
 *   2. the held post is opened and locked (spool_move_lock: a runner or
 *      another moderator's command holding it: tried again later); gone
 *      means another token of the post, or expiry, was first
 *   3. the action commits: approve moves it to QUEUE/ (spool_move, with
 *      a .why that says who approved it; another message of its name in
 *      QUEUE/ refuses the move, and it stays held); reject commits the
 *      note to the poster, then deletes it; discard deletes it
 *   4. the token is spent (spool_token_use)
 * A crash between 3 and 4 leaves an unspent token whose post is no
 * longer held: step 2 refuses it.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lists.h"
#include "log.h"
#include "moderate.h"
#include "moderate_cmd.h"
#include "listfn_msg.h"
#include "request_cmd.h"
#include "spool_move.h"
#include "spool_path.h"
#include "spool_token.h"

/* What one moderation token says. */
struct moderate_token {
	char action[32], domain[NAME_DOMAIN_MAX + 1], list[NAME_LIST_MAX + 1];
	char held[SPOOL_NAME_MAX + 1], poster[SPOOL_ADDR_MAX + 1];
	char path[PATH_MAX]; /* the held post */
};

/* moderate_prio - a tier from a token's text */
static int
moderate_prio(const char *text, const char *key, int *out)
{
	char v[8], *end;
	long n;

	if (spool_token_field(text, key, v, sizeof(v)) == -1)
		return -1;
	n = strtol(v, &end, 10);
	if (*end != '\0' || n < 0 || n > SPOOL_PRIO_MAX)
		return -1;
	*out = (int)n;
	return 0;
}

/* moderate_parse - the token's text for verb at this list: 0 it is
 * one, 1 it is a moderation token for another action or list, -1 it is
 * not a moderation token (another kind, or damaged) */
static int
moderate_parse(const struct request *r, const char *verb, const char *text,
    struct moderate_token *t)
{
	char want[40];
	int dprio, lprio;

	snprintf(want, sizeof(want), "moderate-%s", verb);
	if (spool_token_field(text, "action", t->action, sizeof(t->action)) ==
		-1 ||
	    spool_token_field(text, "domain", t->domain, sizeof(t->domain)) ==
		-1 ||
	    spool_token_field(text, "list", t->list, sizeof(t->list)) == -1 ||
	    spool_token_field(text, "held", t->held, sizeof(t->held)) == -1 ||
	    moderate_prio(text, "dprio", &dprio) == -1 ||
	    moderate_prio(text, "lprio", &lprio) == -1 ||
	    strncmp(t->action, "moderate-", 9) != 0)
		return -1;
	if (spool_token_field(text, "poster", t->poster, sizeof(t->poster)) ==
	    -1)
		t->poster[0] = '\0';
	if (strcmp(t->action, want) != 0 ||
	    r->m->function != SPOOL_FN_REQUEST ||
	    strcmp(t->domain, r->m->domain) != 0 ||
	    strcmp(t->list, r->m->list) != 0)
		return 1;
	if (name_check_list(t->list) != NULL ||
	    spool_message_path(t->path, sizeof(t->path), r->env->s->spool_dir,
		SPOOL_HOLD, dprio, t->domain, lprio, SPOOL_FN_LIST,
		t->held) == -1)
		return -1;
	return 0;
}

/* moderate_reject - step 3 of reject: the poster told, then the post
 * deleted */
static int
moderate_reject(struct request *r, const struct cmd *c,
    const struct moderate_token *t, int fd)
{
	char what[CMD_LINE_MAX + 64];
	struct stat sb;
	void *map;
	int ok;

	if (fstat(fd, &sb) == -1)
		return -1;
	snprintf(what, sizeof(what), "was rejected by a moderator%s%s",
	    c->reason[0] ? ": " : ".", c->reason);
	if (sb.st_size > 0) {
		if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ,
			 MAP_PRIVATE, fd, 0)) == MAP_FAILED)
			return -1;
		ok = moderate_tell(
		    r->env, r->m, t->poster, map, (size_t)sb.st_size, what);
		munmap(map, (size_t)sb.st_size);
		if (ok == -1)
			return -1;
	}
	return spool_move_delete(t->path);
}

/* moderate_act - step 3: the action itself */
static int
moderate_act(struct request *r, const struct cmd *c,
    const struct moderate_token *t, int fd)
{
	char why[SPOOL_ADDR_MAX + 32], final[PATH_MAX];

	switch (c->verb) {
	case CMD_APPROVE:
		snprintf(why, sizeof(why), "approved by <%s>\n", r->requester);
		if (spool_move(r->env->s->spool_dir, t->path, SPOOL_QUEUE, why,
			final, sizeof(final)) == -1)
			return -1;
		r->m->rescan = 1; /* deliver it soon: the runner walks again */
		return 0;
	case CMD_REJECT:
		return moderate_reject(r, c, t, fd);
	default:
		return spool_move_delete(t->path);
	}
}

/* moderate_cmd - approve, reject or discard; -1 when the request must
 * be tried again later */
int
moderate_cmd(struct request *r, const struct cmd *c)
{
	static const char *const done[] = {[CMD_APPROVE] = "approved",
	    [CMD_REJECT] = "rejected",
	    [CMD_DISCARD] = "discarded"};
	const char *verb = cmd_parse_verb_name(c->verb), *spool;

	char text[SPOOL_TOKEN_TEXT_MAX];
	enum spool_token_status st;
	struct moderate_token t;
	int fd, ok = 0;

	spool = r->env->s->spool_dir;
	if (spool_token_read(spool, c->token,
		r->env->ls->request_token_lifetime, time(NULL), text,
		sizeof(text), &st) == -1)
		return -1;
	if (st == SPOOL_TOKEN_OK &&
	    (ok = moderate_parse(r, verb, text, &t)) == 1) {
		log_notice("%s: %s from <%s>: the token is not for %s at "
			   "%s@%s",
		    r->m->name, verb, r->requester, verb, r->m->list,
		    r->m->domain);
		fprintf(r->main->fp, "The token %s is not for %s at %s@%s.\n\n",
		    c->token, verb, r->m->list, r->m->domain);
		return 0;
	}
	if (st == SPOOL_TOKEN_OK && ok == -1) {
		log_notice(
		    "%s: %s from <%s>: token %.8s... is not a moderation "
		    "token, or is damaged",
		    r->m->name, verb, r->requester, c->token);
		fprintf(r->main->fp,
		    "The token %s is not a moderation token, or it is "
		    "damaged: it cannot be used.\n\n",
		    c->token);
		return 0;
	}
	if (st != SPOOL_TOKEN_OK) {
		log_notice("%s: %s from <%s>: token %s", r->m->name, verb,
		    r->requester, spool_token_why(st));
		fprintf(r->main->fp, "The token %s %s.\n\n", c->token,
		    spool_token_why(st));
		return 0;
	}
	if ((fd = spool_move_lock(t.path)) == -1) {
		if (errno == EWOULDBLOCK)
			return -1;
		if (errno != ENOENT) {
			log_warn("%s: cannot open %s", r->m->name, t.path);
			return -1;
		}
		log_notice("%s: %s from <%s>: held post %s is no longer held",
		    r->m->name, verb, r->requester, t.held);
		fprintf(r->main->fp,
		    "The post of token %s is no longer held: a moderator "
		    "dealt with it, or it expired.\n\n",
		    c->token);
		return 0;
	}
	if (moderate_act(r, c, &t, fd) == -1) {
		ok = errno;
		log_warn(
		    "%s: cannot %s held post %s", r->m->name, verb, t.held);
		close(fd);
		if (c->verb != CMD_APPROVE || ok != EEXIST)
			return -1;
		/* Another message has its name in QUEUE/ (spool_move
		 * changed nothing): answered, the token kept for later. */
		fprintf(r->main->fp,
		    "The post %s cannot be approved now: another message "
		    "of that name is queued.  It stays held; try again "
		    "later.\n\n",
		    t.held);
		return 0;
	}
	close(fd);
	/* Another taker cannot have been first: it would have found the
	 * post locked, or gone. */
	if (spool_token_use(spool, c->token, &st) == -1)
		log_warn(
		    "%s: cannot mark token %.8s... used", r->m->name, c->token);
	log_notice("%s: held post %s to %s@%s %s by <%s>%s%s", r->m->name,
	    t.held, t.list, t.domain, done[c->verb], r->requester,
	    c->verb == CMD_REJECT && c->reason[0] ? ": " : "",
	    c->verb == CMD_REJECT ? c->reason : "");
	fprintf(r->main->fp, "The post %s to %s@%s was %s.\n\n", t.held, t.list,
	    t.domain, done[c->verb]);
	return 0;
}
