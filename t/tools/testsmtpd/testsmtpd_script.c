/*
 * testsmtpd_script.c - the reply script: what mj_testsmtpd answers at
 * each stage of a session.
 *
 * A stage (greeting, ehlo, ..., eod, starttls) has a conf for every time
 * it comes ("--reply eod=...") and may have one for its Nth time in a
 * session only ("--reply eod#2=..."): a scripted reply, a delay before
 * the reply, or a fault (drop the connection, fall silent, garbage, a
 * 2 MB line).  The --rcpt patterns choose the reply to RCPT by address.
 * The options are checked and stored here, and applied each time a
 * stage comes (stage_enter, then reply).
 */
#include <ctype.h>
#include <err.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testsmtpd.h"

static const char *stage_names[ST_COUNT] = {"greeting", "ehlo", "helo", "mail",
    "rcpt", "data", "body", "eod", "rset", "quit", "starttls"};

/* stage_lookup - stage number of a name, or exit */
static enum stage
stage_lookup(const char *name, size_t len)
{
	int i;

	for (i = 0; i < ST_COUNT; i++)
		if (strlen(stage_names[i]) == len &&
		    strncmp(stage_names[i], name, len) == 0)
			return i;
	errx(1, "unknown stage \"%.*s\"", (int)len, name);
}

/* stage_conf_arg - the conf an option sets: "STAGE" is the stage's at
 * every time, "STAGE#N" its Nth time in a session only */
struct stage_conf *
stage_conf_arg(const char *name, size_t len)
{
	const char *hash = memchr(name, '#', len);
	unsigned long nth;
	enum stage st;
	char num[24];
	size_t i;

	if (hash == NULL)
		return &cf.stage[stage_lookup(name, len)];
	st = stage_lookup(name, hash - name);
	if ((size_t)snprintf(num, sizeof(num), "%.*s",
		(int)(len - (hash + 1 - name)), hash + 1) >= sizeof(num) ||
	    (nth = number_arg("STAGE#N", num)) == 0)
		errx(1, "bad stage \"%.*s\"", (int)len, name);
	for (i = 0; i < cf.nnth; i++)
		if (cf.nth[i].stage == st && cf.nth[i].nth == nth)
			return &cf.nth[i].conf;
	if ((cf.nth = reallocarray(cf.nth, cf.nnth + 1, sizeof(*cf.nth))) ==
	    NULL)
		err(1, "reallocarray");
	cf.nth[cf.nnth] = (struct nth_rule){.stage = st, .nth = nth};
	return &cf.nth[cf.nnth++].conf;
}

/* reply_arg - check a scripted reply "DDD text" */
const char *
reply_arg(const char *opt, const char *r)
{
	if (strlen(r) < 3 || !isdigit((unsigned char)r[0]) ||
	    !isdigit((unsigned char)r[1]) || !isdigit((unsigned char)r[2]) ||
	    (r[3] != '\0' && r[3] != ' '))
		errx(1, "%s: reply must be \"DDD text\", got \"%s\"", opt, r);
	return r;
}

/* rcpt_rule_arg - add a --rcpt PATTERN=REPLY rule */
void
rcpt_rule_arg(const char *arg)
{
	const char *val;

	/* The pattern may hold '=', the reply never does
	 * before its code: split at the last "=DDD". */
	if ((val = strrchr(arg, '=')) == NULL || val == arg)
		errx(1, "--rcpt: expected PATTERN=REPLY");
	if ((cf.rules = reallocarray(
		 cf.rules, cf.nrules + 1, sizeof(*cf.rules))) == NULL)
		err(1, "reallocarray");
	cf.rules[cf.nrules].pattern = strndup(arg, val - arg);
	cf.rules[cf.nrules++].reply = reply_arg("--rcpt", val + 1);
}

/* rcpt_rule_reply - the reply of the first --rcpt rule the address
 * matches, or NULL */
const char *
rcpt_rule_reply(const char *addr)
{
	size_t i;

	for (i = 0; i < cf.nrules; i++)
		if (fnmatch(cf.rules[i].pattern, addr, FNM_CASEFOLD) == 0)
			return cf.rules[i].reply;
	return NULL;
}

/* stage_enter - the stage comes once more in this session: its conf
 * this time is its Nth-time rule's, if any, else its every-time one */
void
stage_enter(struct session *s, enum stage st)
{
	size_t i;

	s->at[st] = &cf.stage[st];
	s->seen[st]++;
	for (i = 0; i < cf.nnth; i++)
		if (cf.nth[i].stage == st && cf.nth[i].nth == s->seen[st])
			s->at[st] = &cf.nth[i].conf;
}

/* conf_at - a stage's conf as it stands in this session */
const struct stage_conf *
conf_at(const struct session *s, enum stage st)
{
	return s->at[st] != NULL ? s->at[st] : &cf.stage[st];
}

/* reply_now - send the reply of a stage, applying its fault */
void
reply_now(struct session *s, enum stage st, const char *text)
{
	char *big;

	switch (conf_at(s, st)->fault) {
	case F_DROP:
		session_close(s);
		return;
	case F_SILENT:
		s->mode = M_SILENT;
		return;
	case F_GARBAGE:
		out_append(s, GARBAGE, sizeof(GARBAGE) - 1);
		return;
	case F_LONG:
		if ((big = malloc(LONG_REPLY + 6)) == NULL)
			err(1, "malloc");
		memcpy(big, "250 ", 4);
		memset(big + 4, 'x', LONG_REPLY);
		memcpy(big + 4 + LONG_REPLY, "\r\n", 2);
		out_append(s, big, LONG_REPLY + 6);
		free(big);
		return;
	case F_NONE:
		break;
	}
	out_append(s, text, strlen(text));
	out_append(s, "\r\n", 2);
	/* A server that says 421 hangs up (RFC 5321 3.8). */
	if (strncmp(text, "421", 3) == 0)
		s->close_after = 1;
}

/* reply - reply at a stage: scripted text, delay, then the fault */
void
reply(struct session *s, enum stage st, const char *text)
{
	if (conf_at(s, st)->reply != NULL && st != ST_RCPT)
		text = conf_at(s, st)->reply;
	if (conf_at(s, st)->delay_ms > 0) {
		if ((s->pending = strdup(text)) == NULL)
			err(1, "strdup");
		s->pending_stage = st;
		s->wake = now_ms() + conf_at(s, st)->delay_ms;
		return;
	}
	reply_now(s, st, text);
}
