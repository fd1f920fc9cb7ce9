/*
 * smtp_reply.c - incremental parser of SMTP server replies.
 *
 * The caller feeds whatever bytes the socket gave; the parser consumes
 * them up to the end of one reply and says how many it used, so replies
 * to pipelined commands that arrive in one read are taken one at a time.
 * Anything that is not a well-formed reply (garbage, a line longer than
 * our buffer, codes that change between lines) is SMTP_REPLY_ERROR: the
 * caller cannot know where the next reply starts and must give up on the
 * session.  Control characters in the text are replaced, because the
 * text ends up in logs and DSNs.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "smtp_reply.h"

/* smtp_reply_init - prepare a parser for the first reply */
void
smtp_reply_init(struct smtp_reply_parser *p)
{
	memset(p, 0, sizeof(*p));
}

/* smtp_reply_dsn_len - length of an "X.Y.Z" status code matching class */
static size_t
smtp_reply_dsn_len(const char *s, size_t len, int class)
{
	size_t i = 2, part, digits;

	if (len < 5 || s[0] != '0' + class || s[1] != '.')
		return 0;
	/* Then two parts of 1-3 digits with a dot between (RFC 3463). */
	for (part = 0; part < 2; part++) {
		for (digits = 0; i < len && isdigit((unsigned char)s[i]); i++)
			digits++;
		if (digits < 1 || digits > 3)
			return 0;
		if (part == 0 && (i >= len || s[i++] != '.'))
			return 0;
	}
	return i == len || s[i] == ' ' ? i : 0;
}

/* smtp_reply_text - append one line's text, sanitized and bounded */
static void
smtp_reply_text(struct smtp_reply *r, const char *s, size_t len)
{
	size_t i;

	if (r->nlines > 0 && r->textlen + 1 < sizeof(r->text))
		r->text[r->textlen++] = '\n';
	for (i = 0; i < len && r->textlen + 1 < sizeof(r->text); i++)
		r->text[r->textlen++] =
		    isprint((unsigned char)s[i]) ? s[i] : '?';
	r->text[r->textlen] = '\0';
}

/* smtp_reply_line - take one complete line; 1 if it ends the reply */
static int
smtp_reply_line(struct smtp_reply_parser *p, const char *s, size_t len)
{
	struct smtp_reply *r = &p->reply;
	size_t n;
	int code, last;

	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (len < 3 || s[0] < '2' || s[0] > '5' ||
	    !isdigit((unsigned char)s[1]) || !isdigit((unsigned char)s[2]) ||
	    (len > 3 && s[3] != ' ' && s[3] != '-')) {
		p->error = "malformed reply line";
		return -1;
	}
	code = (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
	if (r->nlines > 0 && code != r->code) {
		p->error = "reply code changes between lines";
		return -1;
	}
	r->code = code;
	last = len == 3 || s[3] == ' ';
	s += len > 3 ? 4 : 3;
	len -= len > 3 ? 4 : 3;
	/* Keep the enhanced status code apart (RFC 2034): the first line
	 * decides, continuation lines repeat it. */
	if ((n = smtp_reply_dsn_len(s, len, code / 100)) > 0) {
		if (r->nlines == 0 && n < sizeof(r->dsn)) {
			memcpy(r->dsn, s, n);
			r->dsn[n] = '\0';
		}
		s += n;
		len -= n;
		if (len > 0)
			s++, len--;
	}
	smtp_reply_text(r, s, len);
	r->nlines++;
	if (last && r->dsn[0] == '\0')
		snprintf(r->dsn, sizeof(r->dsn), "%d.0.0", code / 100);
	return last;
}

/* smtp_reply_feed - consume bytes up to the end of one reply */
enum smtp_reply_status
smtp_reply_feed(
    struct smtp_reply_parser *p, const char *buf, size_t len, size_t *used)
{
	size_t i;
	int rc;

	if (p->done || p->error != NULL)
		smtp_reply_init(p);
	for (i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			if (p->linelen >= sizeof(p->line)) {
				p->error = "reply line too long";
				*used = i;
				return SMTP_REPLY_ERROR;
			}
			p->line[p->linelen++] = buf[i];
			continue;
		}
		rc = smtp_reply_line(p, p->line, p->linelen);
		p->linelen = 0;
		if (rc < 0) {
			*used = i + 1;
			return SMTP_REPLY_ERROR;
		}
		if (rc > 0) {
			p->done = 1;
			*used = i + 1;
			return SMTP_REPLY_DONE;
		}
	}
	*used = len;
	return SMTP_REPLY_MORE;
}

/* smtp_reply_format - one line for logs and DSNs: "550 5.1.1 text" */
size_t
smtp_reply_format(const struct smtp_reply *r, char *buf, size_t size)
{
	size_t n, i;
	int len;

	len = snprintf(
	    buf, size, "%d %s%s", r->code, r->dsn, r->textlen > 0 ? " " : "");
	if (len < 0 || (size_t)len >= size)
		return size > 0 ? strlen(buf) : 0;
	n = len;
	for (i = 0; i < r->textlen && n + 1 < size; i++)
		buf[n++] = r->text[i] == '\n' ? ' ' : r->text[i];
	buf[n] = '\0';
	return n;
}
