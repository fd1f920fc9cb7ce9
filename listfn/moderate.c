/*
 * moderate.c - a post its list's posting policy (lists/posting.c) does
 * not accept, at its first processing: held in HOLD/ with its reason in
 * .why and a notice to the moderators, rejected to its poster, or
 * discarded.
 *
 * The notice carries one token per action (approve, reject, discard),
 * each naming the held post by its tiers and name; the Subject is
 * "approve <token>", so the reply button approves (a command in the
 * reply's body counts instead: cmd_parse.c).  Tokens and the notice are
 * committed before the post moves to HOLD/: a crash in between processes
 * the post again (a second notice, whose tokens name the same post),
 * never a held post that nobody was told of.  Notices are rate-limited
 * per moderator like every reply ([request] reply_rate_limit), so a
 * flood of held posts cannot flood them; the limit is asked first, and
 * tokens are made only when some notice will go.
 *
 * A post released into QUEUE/ (approved, or by the operator) carries a
 * .why saying so: the policy is not applied to it again.  Mail from the
 * null sender (a bounce sent to the post address) is never held: it is
 * posted when its From may post and dropped with a log line otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "clock.h"
#include "lists.h"
#include "listfn_aside.h"
#include "listfn_state.h"
#include "log.h"
#include "moderate.h"
#include "listfn_msg.h"
#include "reply.h"
#include "spool_path.h"
#include "spool_token.h"

static const char *const moderate_actions[] = {"approve", "reject", "discard"};

/* moderate_poster - the post's author (From) and envelope sender
 * (Return-Path; "" for the null sender or none) */
void
moderate_poster(
    const char *text, size_t len, char *from, char *sender, size_t addrlen)
{
	char v[1024];

	if (header_value(text, len, "From", v, sizeof(v)) == -1 ||
	    header_addr(v, from, addrlen) == -1 || !name_addr_ok(from))
		from[0] = '\0';
	if (header_return_path(text, len, sender, addrlen) == -1 ||
	    !name_addr_ok(sender))
		sender[0] = '\0';
}

/* moderate_clean - s with control characters made blanks */
static void
moderate_clean(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

/* moderate_excerpt - the post's main headers and first lines, for the
 * moderators to judge it by */
static void
moderate_excerpt(FILE *fp, const char *text, size_t len)
{
	static const char *const names[] = {
	    "From", "To", "Cc", "Subject", "Date", "Message-Id"};
	const char *body = header_end(text, len), *end = text + len, *nl;
	char v[MODERATE_EXCERPT_WIDTH + 1];
	size_t i, n;
	int lines = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (header_value(text, len, names[i], v, sizeof(v)) == 0) {
			moderate_clean(v);
			fprintf(fp, "  %s: %s\n", names[i], v);
		}
	fputs("\n", fp);
	for (; body < end && lines < MODERATE_EXCERPT_LINES; lines++) {
		if ((nl = memchr(body, '\n', (size_t)(end - body))) == NULL)
			nl = end;
		n = (size_t)(nl - body);
		if (n > MODERATE_EXCERPT_WIDTH)
			n = MODERATE_EXCERPT_WIDTH;
		memcpy(v, body, n);
		v[n] = '\0';
		moderate_clean(v);
		fprintf(fp, "  | %s\n", v);
		body = nl + 1;
	}
	if (body < end)
		fputs("  | ...\n", fp);
	fputs("\n", fp);
}

/* moderate_token - a token for one action on the held post m */
static int
moderate_token(struct listfn_env *env, struct listfn_msg *m, const char *action,
    const char *poster, char *token)
{
	char text[SPOOL_TOKEN_TEXT_MAX];
	int n;

	n = snprintf(text, sizeof(text),
	    "action moderate-%s\ndomain %s\nlist %s\ndprio %d\nlprio %d\n"
	    "held %s\nposter %s\n",
	    action, m->domain, m->list, m->domain_prio, m->list_prio, m->name,
	    poster);
	if (n < 0 || (size_t)n >= sizeof(text) ||
	    spool_token_create(env->s->spool_dir, text, (size_t)n, token,
		SPOOL_TOKEN_LEN + 1) == -1) {
		log_warn("%s: cannot create a moderation token", m->name);
		return -1;
	}
	return 0;
}

/* moderate_body - the text of the notice: why, the excerpt, the three
 * commands; NULL when out of memory */
static char *
moderate_body(const struct listfn_msg *m, const struct listconf *lc,
    const char *text, size_t len, const char *why, const char *self,
    char tok[3][SPOOL_TOKEN_LEN + 1], size_t *blen)
{
	char *body = NULL, life[64];
	FILE *fp;

	clock_span_words(lc->moderation_lifetime, life, sizeof(life));
	if ((fp = open_memstream(&body, blen)) == NULL)
		return NULL;
	fprintf(fp, "A post to %s@%s awaits a moderator: %s.\n\n", m->list,
	    m->domain, why);
	moderate_excerpt(fp, text, len);
	fprintf(fp,
	    "To let it through, reply to this message, or send a\n"
	    "message to %s with the line\n"
	    "\n"
	    "approve %s\n"
	    "\n"
	    "To return it to its poster (a reason may follow the token):\n"
	    "\n"
	    "reject %s\n"
	    "\n"
	    "To drop it silently:\n"
	    "\n"
	    "discard %s\n"
	    "\n"
	    "Only the first of these counts, and one written in the body\n"
	    "of a reply counts instead of the Subject's.  Without one the\n"
	    "post is removed in %s and its poster told.\n",
	    self, tok[0], tok[1], tok[2], life);
	if (lc->pages_url[0] != '\0')
		fprintf(fp,
		    "\nOr see the post, safely shown, and press one of the\n"
		    "three buttons on its page (mj_listweb):\n"
		    "\n"
		    "%s%sl=%s%%40%s&m=%s-%s-%s\n",
		    lc->pages_url, strchr(lc->pages_url, '?') ? "&" : "?",
		    m->list, m->domain, tok[0], tok[1], tok[2]);
	if (fclose(fp) == EOF) {
		free(body);
		return NULL;
	}
	return body;
}

/* moderate_notice_to - the moderators whose notice the reply rate limit
 * lets through, made in rs; their number, or -1 */
static int
moderate_notice_to(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, struct reply_set *rs)
{
	struct reply *to;
	char **v;
	size_t n, i;
	int ok = 0, r;

	if (posting_moderators(lc, &v, &n) == -1)
		return -1;
	if (n == 0)
		log_warnx("%s: list %s@%s has no moderators or owners: held "
			  "without a notice",
		    m->name, m->list, m->domain);
	for (i = 0; i < n && ok != -1; i++)
		if ((to = reply_for(rs, v[i])) == NULL ||
		    (r = reply_rate(env, m, to)) == -1)
			ok = -1;
		else
			ok += r;
	listconf_free_vec(v, n);
	return ok;
}

/* moderate_notice - the notice to each moderator within the reply rate
 * limit, committed; its tokens are made only when one goes */
static int
moderate_notice(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len, const char *why,
    const char *poster)
{
	char tok[3][SPOOL_TOKEN_LEN + 1], self[SPOOL_ADDR_MAX + 1];
	char *body;
	struct reply_set rs;
	size_t i, k, blen;
	int ok;

	snprintf(self, sizeof(self), "%s-request@%s", m->list, m->domain);
	reply_init(&rs, self, "", "");
	if ((ok = moderate_notice_to(env, m, lc, &rs)) <= 0) {
		reply_free(&rs);
		return ok; /* none goes: no tokens that nobody can use */
	}
	for (k = 0; k < 3; k++)
		if (moderate_token(
			env, m, moderate_actions[k], poster, tok[k]) == -1) {
			reply_free(&rs);
			return -1;
		}
	if ((body = moderate_body(m, lc, text, len, why, self, tok, &blen)) ==
	    NULL) {
		reply_free(&rs);
		return -1;
	}
	/* One text, the same tokens, to every moderator: the first to
	 * act decides. */
	for (i = 0; i < rs.n; i++)
		if (rs.r[i]->rated == 1) {
			rs.r[i]->notice = 1;
			snprintf(rs.r[i]->subject, sizeof(rs.r[i]->subject),
			    "approve %s", tok[0]);
			fwrite(body, 1, blen, rs.r[i]->fp);
		}
	free(body);
	ok = reply_commit(env, m, &rs);
	reply_free(&rs);
	return ok;
}

/* moderate_tell - a note to the poster of the post text about it (what
 * happened, one sentence), from <list>-request; none to an automatic
 * sender.  -1 when it could not be committed */
int
moderate_tell(struct listfn_env *env, struct listfn_msg *m, const char *to,
    const char *text, size_t len, const char *what)
{
	char self[SPOOL_ADDR_MAX + 1], subject[CMD_LINE_MAX + 1];
	struct reply_set rs;
	struct reply *r;
	int ok;

	if (to[0] == '\0' || reply_automatic(text, len, NULL) != NULL)
		return 0;
	if (header_value(text, len, "Subject", subject, sizeof(subject)) == -1)
		subject[0] = '\0';
	moderate_clean(subject);
	snprintf(self, sizeof(self), "%s-request@%s", m->list, m->domain);
	reply_init(&rs, self, "", "");
	if ((r = reply_for(&rs, to)) == NULL) {
		reply_free(&rs);
		return -1;
	}
	r->notice = 1;
	fprintf(r->fp,
	    "Your post to %s@%s (Subject: %s)\n%s\n\n"
	    "Questions go to %s-owner@%s.\n",
	    m->list, m->domain, subject, what, m->list, m->domain);
	ok = reply_commit(env, m, &rs);
	reply_free(&rs);
	return ok;
}

/* moderate_refuse - nonmember_action reject or discard at arrival: the
 * poster is told (reject), the post ends with no recipients (its state
 * file records the envelope sender) */
static int
moderate_refuse(struct listfn_env *env, struct listfn_msg *m, int action,
    const char *text, size_t len, const char *why, const char *poster,
    const char *sender)
{
	char what[SPOOL_ADDR_MAX + 200];

	if (action == POSTING_REJECT) {
		snprintf(what, sizeof(what), "was not accepted: %s.", why);
		if (moderate_tell(env, m, poster, text, len, what) == -1)
			return -1;
	}
	log_notice("%s: post %s: %s", m->name,
	    action == POSTING_REJECT ? "rejected" : "discarded", why);
	return listfn_state_empty(env, m, "post", sender);
}

/* moderate_banned - 1 when the poster (its From, else its envelope
 * sender) is banned from the list (bans.h), why saying who and by
 * which pattern; 0 not; -1 the bans cannot be read */
static int
moderate_banned(struct listfn_env *env, const struct listfn_msg *m,
    const char *from, const char *sender, char *why, size_t whylen)
{
	const char *pat = NULL, *who = from;
	struct bans b;

	if (bans_load(env->s, m->domain, m->list, &b) == -1)
		return -1;
	if (from[0] != '\0')
		pat = bans_match(&b, from);
	if (pat == NULL && sender[0] != '\0')
		pat = bans_match(&b, who = sender);
	if (pat != NULL)
		(void)snprintf(why, whylen, "<%s> is banned (%s)", who, pat);
	bans_free(&b);
	return pat != NULL;
}

/* moderate_post - the posting policy for a post at its first
 * processing: 0 post it, -2 held (moved to HOLD/), 1 rejected or
 * discarded (it has an empty state file now), -1 try again later */
int
moderate_post(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len)
{
	char from[SPOOL_ADDR_MAX + 1], sender[SPOOL_ADDR_MAX + 1];
	char why[SPOOL_ADDR_MAX + 128], whytext[SPOOL_ADDR_MAX + 160];
	const char *poster;
	int action, bounce;

	moderate_poster(text, len, from, sender, sizeof(from));
	/* The null sender ("Return-Path: <>"), not an unknown one. */
	bounce = header_return_path(text, len, whytext, sizeof(whytext)) == 0 &&
		 whytext[0] == '\0';
	/* A banned poster's post is dropped before anyone sees it: no
	 * notice to the moderators, no answer to a spammer's address. */
	if ((action = moderate_banned(
		 env, m, from, sender, why, sizeof(why))) != 0) {
		if (action == -1) {
			log_warnx("%s: cannot read the list's bans", m->name);
			return -1;
		}
		return moderate_refuse(env, m, POSTING_DISCARD, text, len, why,
			   "", sender) == -1
			   ? -1
			   : 1;
	}
	if ((action = posting_check(env->s, m->domain, m->list, lc, from,
		 sender, why, sizeof(why))) == -1) {
		log_warn("%s: cannot check the list's posting policy", m->name);
		return -1;
	}
	if (action == POSTING_ACCEPT &&
	    (action = posting_rules_check(lc, text, len, why, sizeof(why))) ==
		POSTING_ACCEPT)
		return 0;
	if (bounce && action == POSTING_HOLD)
		action = POSTING_DISCARD; /* never held */
	/* Told of a reject or expiry: the envelope sender, else From;
	 * never anyone for a bounce. */
	poster = sender[0] ? sender : bounce ? "" : from;
	if (action != POSTING_HOLD)
		return moderate_refuse(
			   env, m, action, text, len, why, poster, sender) == -1
			   ? -1
			   : 1;
	if (moderate_notice(env, m, lc, text, len, why, poster) == -1) {
		log_warnx("%s: cannot notify the moderators: tried again later",
		    m->name);
		return -1;
	}
	snprintf(whytext, sizeof(whytext), "%s%s", MODERATE_WHY, why);
	return listfn_aside(env, m, SPOOL_HOLD, whytext);
}
