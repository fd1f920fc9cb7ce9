/*
 * cmd_parse.h - the commands of a request message, from its text.
 *
 * Pure code: text in, a bounded list of commands out, no I/O.  The
 * Subject is read first (only when it is a known command, so "Re: hello"
 * is not an error), then the body: the first text/plain part of a MIME
 * message, decoded from base64 or quoted-printable, line by line until
 * "end" or a signature marker.  A moderation command in the Subject
 * (the notice's "approve <token>", kept by the reply button) is not run
 * when the body gives one of its own: the body is what the moderator
 * wrote.  A name suffix (mj_enqueue -c, the <list>-subscribe aliases) is
 * the whole request: the body is not read.
 */
#ifndef MJQ_CMD_PARSE_H
#define MJQ_CMD_PARSE_H

#include <stddef.h>

#include "names.h"

#define CMD_MAX 50	   /* commands taken from one message */
#define CMD_LINE_MAX 200   /* a longer line is not a command */
#define CMD_ADDR_MAX 512   /* NAME_ADDR_MAX */
#define CMD_TOKEN_MAX 64   /* a confirmation token */
#define CMD_ERRORS_MAX 5   /* unknown lines before the body is dropped */
#define CMD_BODY_MAX 65536 /* decoded body text looked at */

enum cmd_verb {
	CMD_UNKNOWN, /* a line that is not a command: reported */
	CMD_HELP,
	CMD_LISTS,
	CMD_INFO,
	CMD_SUBSCRIBE,
	CMD_UNSUBSCRIBE,
	CMD_WHICH,
	CMD_WHO,
	CMD_CONFIRM,
	CMD_ENABLE,  /* delivery to the requester, disabled by bounces, again;
			with a probe's token, to the address it went to */
	CMD_APPROVE, /* moderation: a held post goes out */
	CMD_REJECT,  /* ... is returned to its poster, with the reason */
	CMD_DISCARD, /* ... is dropped silently */
	CMD_SET,     /* the subscriber's mode (subs_mode.h), confirmed */
	CMD_HELD,    /* moderation: a link to the page of held posts */
	CMD_OPTIONS, /* a link to the requester's options page */
	CMD_SKIPPED, /* a command that is not run: reported, error says why */
};

struct cmd {
	enum cmd_verb verb;
	char list[NAME_LIST_MAX + 1];  /* "" = none given (or default) */
	char addr[CMD_ADDR_MAX + 1];   /* "" = the requester */
	char token[CMD_TOKEN_MAX + 1]; /* confirm, approve, reject, discard;
					  enable: a probe's, or "" */
	char reason[CMD_LINE_MAX + 1]; /* reject: the rest of the line */
	int mode;		       /* set: enum subs_mode */
	char line[CMD_LINE_MAX + 1];   /* as written, for the reply */
	const char *error;	       /* CMD_UNKNOWN, CMD_SKIPPED: why */
	const char *detail; /* more on error (a static text) or NULL */
};

struct cmd_set {
	struct cmd cmd[CMD_MAX];
	size_t n;
	int truncated; /* more commands than CMD_MAX, or too many errors */
};

const char *cmd_parse_verb_name(enum cmd_verb v);
const char *cmd_parse_error(const struct cmd *c, char *buf, size_t len);
int cmd_parse_message(const char *text, size_t len, const char *suffix,
    const char *deflist, struct cmd_set *out);

#endif
