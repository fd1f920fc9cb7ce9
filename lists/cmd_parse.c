/*
 * cmd_parse.c - the commands of a request message, from its text.
 *
 * Pure code: the runner does the I/O (request.c), this file only reads.
 * The rules are Majordomo's, made safe for the mail of today: one command
 * per line; blank and quoted (">") lines skipped, since a reply quotes the
 * message it answers; "end", "exit", "quit" or a signature marker ("-- ")
 * ends the commands; the body is the first text/plain part, so neither an
 * HTML twin nor an attachment is read as commands.  Everything is bounded
 * (CMD_MAX commands, CMD_LINE_MAX per line, CMD_ERRORS_MAX unknown lines,
 * CMD_BODY_MAX bytes of body), because anyone may send anything.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd_mime.h"
#include "header.h"
#include "cmd_mime_words.h"
#include "cmd_parse.h"
#include "names.h"
#include "subs_mode.h"

/* What each verb takes: a list, an address, a token, and for reject the
 * rest of the line as its reason; ARG_TOKEN_OPT, a token after the list
 * (enable's, from a probe). */
enum {
	ARG_LIST = 1,
	ARG_LIST_OPT = 2,
	ARG_ADDR = 4,
	ARG_TOKEN = 8,
	ARG_REASON = 16,
	ARG_TOKEN_OPT = 32,
	ARG_MODE = 64
};

static const struct cmd_parse_verb {
	const char *name;
	enum cmd_verb verb;
	int args;
} cmd_parse_verbs[] = {
    {"help", CMD_HELP, 0},
    {"lists", CMD_LISTS, 0},
    {"info", CMD_INFO, ARG_LIST},
    {"subscribe", CMD_SUBSCRIBE, ARG_LIST | ARG_ADDR},
    {"sub", CMD_SUBSCRIBE, ARG_LIST | ARG_ADDR},
    {"unsubscribe", CMD_UNSUBSCRIBE, ARG_LIST | ARG_ADDR},
    {"unsub", CMD_UNSUBSCRIBE, ARG_LIST | ARG_ADDR},
    {"signoff", CMD_UNSUBSCRIBE, ARG_LIST | ARG_ADDR},
    {"which", CMD_WHICH, ARG_ADDR},
    {"who", CMD_WHO, ARG_LIST},
    {"enable", CMD_ENABLE, ARG_LIST | ARG_TOKEN_OPT},
    {"set", CMD_SET, ARG_LIST | ARG_MODE | ARG_ADDR},
    {"confirm", CMD_CONFIRM, ARG_TOKEN},
    {"approve", CMD_APPROVE, ARG_TOKEN},
    {"reject", CMD_REJECT, ARG_TOKEN | ARG_REASON},
    {"discard", CMD_DISCARD, ARG_TOKEN},
    {"held", CMD_HELD, ARG_LIST},
    {"options", CMD_OPTIONS, ARG_LIST},
};
#define NVERBS (sizeof(cmd_parse_verbs) / sizeof(cmd_parse_verbs[0]))

/* cmd_parse_verb_name - the canonical name of a verb */
const char *
cmd_parse_verb_name(enum cmd_verb v)
{
	size_t i;

	for (i = 0; i < NVERBS; i++)
		if (cmd_parse_verbs[i].verb == v)
			return cmd_parse_verbs[i].name;
	return "unknown";
}

/* cmd_parse_fail - c becomes an unknown command, with why */
static int
cmd_parse_fail(struct cmd *c, const char *why)
{
	c->verb = CMD_UNKNOWN;
	c->list[0] = c->addr[0] = c->token[0] = c->reason[0] = '\0';
	c->error = why;
	c->detail = NULL;
	return -1;
}

/* cmd_parse_error - c's error in words, with its detail if any */
const char *
cmd_parse_error(const struct cmd *c, char *buf, size_t len)
{
	if (c->detail == NULL)
		return c->error;
	(void)snprintf(buf, len, "%s (%s)", c->error, c->detail); /* may cut */
	return buf;
}

/* cmd_parse_word - one argument: an address (with an @, angle brackets
 * dropped), a token, or a list name (folded to lower case) */
static int
cmd_parse_word(struct cmd *c, int args, char *w)
{
	size_t n = strlen(w), i;
	const char *why;

	if ((args & ARG_TOKEN) || ((args & ARG_TOKEN_OPT) && c->list[0])) {
		if (c->token[0] != '\0' || n == 0 || n > CMD_TOKEN_MAX)
			return cmd_parse_fail(c, "malformed token");
		for (i = 0; i < n; i++) {
			if (!isalnum((unsigned char)w[i]))
				return cmd_parse_fail(c, "malformed token");
			c->token[i] = (char)tolower((unsigned char)w[i]);
		}
		c->token[n] = '\0';
		return 0;
	}
	if (strchr(w, '@') != NULL && (args & ARG_ADDR)) {
		if (w[0] == '<' && n > 2 && w[n - 1] == '>') {
			w[n - 1] = '\0';
			w++;
		}
		if (c->addr[0] != '\0')
			return cmd_parse_fail(c, "malformed address");
		if ((why = name_addr_check(w)) != NULL) {
			cmd_parse_fail(c, "malformed address");
			c->detail = why;
			return -1;
		}
		(void)strlcpy(c->addr, w, sizeof(c->addr)); /* fits: checked */
		return 0;
	}
	/* set [list] mode [address]: the mode is the last word of the two */
	if ((args & ARG_MODE) && c->list[0] != '\0' && c->mode == -1) {
		if ((c->mode = subs_mode_parse(w, n)) == -1)
			return cmd_parse_fail(c, "unknown mode (digest, "
						 "digest-plain, each, nomail, "
						 "notmetoo)");
		return 0;
	}
	if (args & (ARG_LIST | ARG_LIST_OPT)) {
		for (i = 0; w[i] != '\0'; i++)
			w[i] = (char)tolower((unsigned char)w[i]);
		if (c->list[0] != '\0' || name_check_list(w) != NULL ||
		    strlcpy(c->list, w, sizeof(c->list)) >= sizeof(c->list))
			return cmd_parse_fail(c, "malformed list name");
		return 0;
	}
	return cmd_parse_fail(c, "too many arguments");
}

/* cmd_parse_line - one line (without its line break) into c; 0 a
 * command, -1 not one (c->verb is CMD_UNKNOWN, c->error says why) */
static int
cmd_parse_line(const char *line, size_t len, const char *deflist, struct cmd *c)
{
	char buf[CMD_LINE_MAX + 1], *w, *save = NULL;
	const struct cmd_parse_verb *v = NULL;
	size_t i;

	memset(c, 0, sizeof(*c));
	if (len > CMD_LINE_MAX) {
		memcpy(c->line, line, CMD_LINE_MAX - 3);
		(void)strlcpy(c->line + CMD_LINE_MAX - 3, "...", 4);
		return cmd_parse_fail(c, "line too long");
	}
	memcpy(c->line, line, len);
	c->line[len] = '\0';
	for (i = 0; i < len; i++)
		if ((unsigned char)c->line[i] < 0x20 && c->line[i] != '\t')
			c->line[i] = ' ';
	memcpy(buf, c->line, len + 1);
	if ((w = strtok_r(buf, " \t", &save)) == NULL)
		return cmd_parse_fail(c, "empty line");
	for (i = 0; i < NVERBS && v == NULL; i++)
		if (strcasecmp(w, cmd_parse_verbs[i].name) == 0)
			v = &cmd_parse_verbs[i];
	if (v == NULL)
		return cmd_parse_fail(c, "unknown command");
	c->verb = v->verb;
	c->mode = -1;
	while ((w = strtok_r(NULL, " \t", &save)) != NULL) {
		if (cmd_parse_word(c, v->args, w) == -1)
			return -1;
		if ((v->args & ARG_REASON) && save != NULL) {
			save += strspn(save, " \t");
			strlcpy(c->reason, save, sizeof(c->reason));
			break;
		}
	}
	if ((v->args & ARG_MODE) && c->mode == -1) {
		/* one word: the mode, for the default list */
		if ((c->mode = subs_mode_parse(c->list, strlen(c->list))) == -1)
			return cmd_parse_fail(c,
			    "which mode? (set LIST digest|digest-plain|each|"
			    "nomail|notmetoo)");
		c->list[0] = '\0';
	}
	if ((v->args & ARG_TOKEN) && c->token[0] == '\0')
		return cmd_parse_fail(c, "which token? (confirm TOKEN)");
	if ((v->args & ARG_LIST) && c->list[0] == '\0') {
		if (deflist == NULL || deflist[0] == '\0')
			return cmd_parse_fail(c, "which list? (give its name)");
		if (strlcpy(c->list, deflist, sizeof(c->list)) >=
		    sizeof(c->list))
			return cmd_parse_fail(c, "list name too long");
	}
	return 0;
}

/* cmd_parse_same - a earlier command says exactly what c says */
static int
cmd_parse_same(const struct cmd_set *out, const struct cmd *c)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		if (out->cmd[i].verb == c->verb && c->verb != CMD_UNKNOWN &&
		    strcmp(out->cmd[i].list, c->list) == 0 &&
		    strcasecmp(out->cmd[i].addr, c->addr) == 0 &&
		    strcmp(out->cmd[i].token, c->token) == 0 &&
		    out->cmd[i].mode == c->mode)
			return 1;
	return 0;
}

/* cmd_parse_add - keep a command unless it repeats one; -1 when full */
static int
cmd_parse_add(struct cmd_set *out, const struct cmd *c)
{
	if (cmd_parse_same(out, c))
		return 0;
	if (out->n >= CMD_MAX) {
		out->truncated = 1;
		return -1;
	}
	out->cmd[out->n++] = *c;
	return 0;
}

/* cmd_parse_subject - the Subject into c, when it is a command (c->verb
 * CMD_UNKNOWN otherwise); replies carry "Re:" (a confirmation is often
 * answered with the reply button) */
static void
cmd_parse_subject(
    const char *text, size_t len, const char *deflist, struct cmd *c)
{
	char subj[CMD_LINE_MAX * 2 + 1], *p;

	memset(c, 0, sizeof(*c));
	if (header_value(text, len, "Subject", subj, sizeof(subj)) == -1)
		return;
	if (cmd_mime_words(subj, sizeof(subj)) ==
	    -1) /* =?UTF-8?Q?subscribe?= */
		return;
	for (p = subj;;) {
		while (*p == ' ')
			p++;
		if (strncasecmp(p, "re:", 3) == 0)
			p += 3;
		else if (strncasecmp(p, "fwd:", 4) == 0)
			p += 4;
		else if (strncasecmp(p, "aw:", 3) == 0)
			p += 3;
		else
			break;
	}
	if (cmd_parse_line(p, strlen(p), deflist, c) == -1)
		c->verb = CMD_UNKNOWN;
}

/* cmd_parse_moderation - the verb is approve, reject or discard */
static int
cmd_parse_moderation(enum cmd_verb v)
{
	return v == CMD_APPROVE || v == CMD_REJECT || v == CMD_DISCARD;
}

/* cmd_parse_first - put the Subject's command c before the body's;
 * a moderation command when the body gives one is not run (the notice's
 * Subject is "approve <token>": a moderator who replies "discard" or
 * "reject" in the body must never approve), and is reported as such */
static void
cmd_parse_first(struct cmd_set *out, struct cmd *c)
{
	size_t i;
	int body_moderates = 0;

	if (c->verb == CMD_UNKNOWN)
		return;
	for (i = 0; i < out->n; i++)
		if (cmd_parse_moderation(out->cmd[i].verb))
			body_moderates = 1;
	if (cmd_parse_moderation(c->verb) && body_moderates) {
		if (cmd_parse_same(out, c))
			return; /* the body says the same */
		c->verb = CMD_SKIPPED;
		c->error = "Not run: the body of the message gives a "
			   "moderation command, and that counts instead of "
			   "the Subject's";
	} else if (cmd_parse_same(out, c))
		return;
	if (out->n >= CMD_MAX) {
		out->n--;
		out->truncated = 1;
	}
	memmove(&out->cmd[1], &out->cmd[0], out->n * sizeof(out->cmd[0]));
	out->cmd[0] = *c;
	out->n++;
}

/* cmd_parse_stop - the line ends the commands: end, exit, quit, or a
 * signature marker ("-- ", and "--" that editors strip) */
static int
cmd_parse_stop(const char *line, size_t len)
{
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (len == 2 && line[0] == '-' && line[1] == '-')
		return 1;
	return (len == 3 && strncasecmp(line, "end", 3) == 0) ||
	       (len == 4 && strncasecmp(line, "exit", 4) == 0) ||
	       (len == 4 && strncasecmp(line, "quit", 4) == 0);
}

/* cmd_parse_body - the body's lines, until the end of the commands */
static void
cmd_parse_body(
    const char *body, size_t blen, const char *deflist, struct cmd_set *out)
{
	const char *p = body, *end = body + blen, *nl, *e;
	size_t errors = 0;
	struct cmd c;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		e = nl;
		if (e > p && e[-1] == '\r')
			e--;
		if (cmd_parse_stop(p, (size_t)(e - p)))
			return;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (p == e || *p == '>')
			continue;
		if (cmd_parse_line(p, (size_t)(e - p), deflist, &c) == -1 &&
		    ++errors > CMD_ERRORS_MAX) {
			/* Prose, not commands: say so once and stop. */
			out->truncated = 1;
			return;
		}
		if (cmd_parse_add(out, &c) == -1)
			return;
	}
}

/* cmd_parse_message - every command of a message; suffix is the name's
 * ",command" ("" when none), deflist the list of <list>-request ("" for
 * majordomo@); -1 only when out of memory */
int
cmd_parse_message(const char *text, size_t len, const char *suffix,
    const char *deflist, struct cmd_set *out)
{
	struct cmd c, subject;
	char *body;
	size_t blen;

	memset(out, 0, sizeof(*out));
	if (suffix != NULL && suffix[0] != '\0') {
		/* The address is the request: <list>-subscribe takes
		 * no further orders from the text. */
		cmd_parse_line(suffix, strlen(suffix), deflist, &c);
		cmd_parse_add(out, &c);
		return 0;
	}
	cmd_parse_subject(text, len, deflist, &subject);
	if (cmd_mime_plain(text, len, CMD_BODY_MAX, &body, &blen) == -1)
		return -1;
	cmd_parse_body(body, blen, deflist, out);
	free(body);
	cmd_parse_first(out, &subject);
	return 0;
}
