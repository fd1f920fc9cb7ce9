/*
 * reply.c - the mail the list functions answer with: a request's
 * answers, moderators' notices, a bounce's note to the owners; one
 * generated message per address concerned, built up while the commands
 * run.
 *
 * What a command says about an address goes to that address only (the
 * confirmation of a subscription, the answer to "which"), so a request
 * can never be used to learn about, or mail, someone else beyond one
 * bounded, rate-limited note.  Replies follow RFC 3834: the null envelope
 * sender (a bounce of a reply dies), Auto-Submitted: auto-replied, and
 * In-Reply-To the request.  Each is committed like a DSN (dsn.c): with its
 * state file, by spool_move_generate, under owner/ of the request's tiers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "lists.h"
#include "generate.h"
#include "log.h"
#include "listfn_msg.h"
#include "reply.h"
#include "spool_rate.h"

/* reply_automatic - why the message must not be answered (RFC 3834:
 * the null sender, Auto-Submitted, Precedence bulk/junk/list), or NULL */
const char *
reply_automatic(const char *text, size_t len, const char *sender)
{
	char v[256];

	if (sender != NULL && sender[0] == '\0')
		return "the null sender";
	if (header_value(text, len, "Auto-Submitted", v, sizeof(v)) == 0 &&
	    strncasecmp(v, "no", 2) != 0)
		return "Auto-Submitted";
	if (header_value(text, len, "Precedence", v, sizeof(v)) == 0 &&
	    (strncasecmp(v, "bulk", 4) == 0 || strncasecmp(v, "junk", 4) == 0 ||
		strncasecmp(v, "list", 4) == 0))
		return "Precedence: bulk, junk or list";
	return NULL;
}

/* reply_init - an empty set of answers from the address from */
void
reply_init(struct reply_set *rs, const char *from, const char *subject,
    const char *msgid)
{
	memset(rs, 0, sizeof(*rs));
	(void)strlcpy(rs->from, from, sizeof(rs->from)); /* callers' size */
	(void)strlcpy(rs->subject, subject, sizeof(rs->subject));
	/* A cut Message-Id would thread the answer under another. */
	if (strlcpy(rs->msgid, msgid, sizeof(rs->msgid)) >= sizeof(rs->msgid))
		rs->msgid[0] = '\0';
}

/* reply_for - the answer to an address, made on first use; NULL when out
 * of memory */
struct reply *
reply_for(struct reply_set *rs, const char *to)
{
	struct reply *r, **v;
	size_t i;

	/* Pointers, not structs, in the vector: callers keep them. */
	for (i = 0; i < rs->n; i++)
		if (strcasecmp(rs->r[i]->to, to) == 0)
			return rs->r[i];
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 4;
		if ((v = reallocarray(rs->r, cap, sizeof(*v))) == NULL)
			return NULL;
		rs->r = v;
		rs->cap = cap;
	}
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	/* Cut, it would be someone else's address. */
	if (strlcpy(r->to, to, sizeof(r->to)) >= sizeof(r->to)) {
		log_warnx("cannot answer <%.64s...>: address too long", to);
		free(r);
		return NULL;
	}
	if ((r->fp = open_memstream(&r->body, &r->len)) == NULL) {
		free(r);
		return NULL;
	}
	rs->r[rs->n++] = r;
	return r;
}

/* reply_subject - a lone token is the subject, so the reply button
 * confirms it; otherwise the answer is named after the request, with one
 * "Re: " (a reply to a confirmation, "Re: confirm ...", keeps its own) */
static void
reply_subject(
    const struct reply_set *rs, const struct reply *r, char *out, size_t outlen)
{
	const char *subj = rs->subject[0] ? rs->subject : "your request";

	if (r->subject[0] != '\0')
		snprintf(out, outlen, "%s", r->subject);
	else if (r->ntokens == 1)
		snprintf(out, outlen, "confirm %s", r->token);
	else if (r->notice)
		snprintf(out, outlen, "Notice from %s", rs->from);
	else
		snprintf(out, outlen, "%s%.150s",
		    strncasecmp(subj, "Re:", 3) == 0 ? "" : "Re: ", subj);
}

/* reply_text - the whole message */
static int
reply_text(const struct reply_set *rs, const struct reply *r,
    const char *domain, char **text, size_t *len)
{
	char date[64], subject[SPOOL_ADDR_MAX + CMD_LINE_MAX + 32];
	time_t now = time(NULL);
	struct tm tm;
	FILE *fp;

	if (localtime_r(&now, &tm) == NULL ||
	    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm) == 0)
		(void)strlcpy(
		    date, "Thu, 01 Jan 1970 00:00:00 +0000", sizeof(date));
	reply_subject(rs, r, subject, sizeof(subject));
	if ((fp = open_memstream(text, len)) == NULL)
		return -1;
	fprintf(fp,
	    "From: <%s>\n"
	    "To: <%s>\n"
	    "Subject: %s\n"
	    "Date: %s\n"
	    "Message-Id: <%lld.%08x.mjq@%s>\n",
	    rs->from, r->to, subject, date, (long long)now, arc4random(),
	    domain);
	if (rs->msgid[0] && !r->notice)
		fprintf(fp, "In-Reply-To: %s\nReferences: %s\n", rs->msgid,
		    rs->msgid);
	fprintf(fp,
	    "Auto-Submitted: auto-replied\n"
	    "X-Loop: %s\n"
	    "MIME-Version: 1.0\n"
	    "Content-Type: text/plain; charset=us-ascii\n"
	    "\n"
	    "This is an automatic message from %s.\n"
	    "\n"
	    "%.*s",
	    rs->from, rs->from, (int)r->len, r->body);
	return fclose(fp) == EOF ? -1 : 0;
}

/* reply_generate - commit one answer; -1 when it could not be */
static int
reply_generate(struct listfn_env *env, struct listfn_msg *m,
    const struct reply_set *rs, const struct reply *r)
{
	char final[PATH_MAX], *text = NULL;
	size_t tlen;
	int ok = -1;

	if (reply_text(rs, r, m->domain, &text, &tlen) == -1 ||
	    generate_commit(
		env, m, "reply", r->to, text, tlen, final, sizeof(final)) == -1)
		goto done;
	log_info(
	    "%s: reply %s to <%s>", m->name, strrchr(final, '/') + 1, r->to);
	ok = 0;
done:
	free(text);
	return ok;
}

/* reply_rate - whether the message r will be sent: its address's reply
 * count is taken once, here, so a caller can ask before it makes a token
 * for a message that the limit would suppress.  1 sent, 0 not, -1 when
 * the count cannot be kept */
int
reply_rate(struct listfn_env *env, struct listfn_msg *m, struct reply *r)
{
	int ok;

	if (r->rated != 0)
		return r->rated == 1;
	if ((ok = spool_rate_take(env->s->spool_dir, r->to,
		 env->ls->request_reply_rate_limit,
		 env->ls->request_reply_rate_period, time(NULL))) == -1) {
		log_warn("%s: cannot count replies to <%s>", m->name, r->to);
		return -1;
	}
	if (ok == 0)
		log_notice("%s: no reply to <%s>: more than %lld replies in "
			   "%llds ([request] reply_rate_limit)",
		    m->name, r->to, env->ls->request_reply_rate_limit,
		    env->ls->request_reply_rate_period);
	r->rated = ok ? 1 : -1;
	return ok;
}

/* reply_commit - every answer that is within its address's rate limit;
 * -1 when one could not be committed (the request is tried again) */
int
reply_commit(struct listfn_env *env, struct listfn_msg *m, struct reply_set *rs)
{
	struct reply *r;
	size_t i;
	int ok;

	for (i = 0; i < rs->n; i++) {
		r = rs->r[i];
		if (fflush(r->fp) == EOF)
			return -1;
		if (r->len == 0)
			continue;
		if ((ok = reply_rate(env, m, r)) == -1)
			return -1;
		if (ok == 0)
			continue;
		if (reply_generate(env, m, rs, r) == -1) {
			log_warn("%s: cannot commit the reply to <%s>", m->name,
			    r->to);
			return -1;
		}
	}
	return 0;
}

/* reply_free - release every answer */
void
reply_free(struct reply_set *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		if (rs->r[i]->fp != NULL)
			fclose(rs->r[i]->fp);
		free(rs->r[i]->body);
		free(rs->r[i]);
	}
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}
