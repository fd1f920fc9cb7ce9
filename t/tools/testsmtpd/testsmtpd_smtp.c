/*
 * testsmtpd_smtp.c - the SMTP server side of a session: greeting,
 * commands, envelope, message text.
 *
 * Without options it is a well-behaved ESMTP sink (PIPELINING, SIZE,
 * 8BITMIME, STARTTLS when --tls-cert is given); each stage's reply goes
 * through the reply script (reply()), which may replace, delay or break
 * it.  session_input works through whatever the session has buffered:
 * command lines, or DATA text, parsed byte by byte for CRLF.CRLF.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "testsmtpd.h"

static unsigned long next_msg_id = 1;

/* session_greet - the 220 greeting of a new session */
void
session_greet(struct session *s)
{
	stage_enter(s, ST_GREETING);
	reply(s, ST_GREETING, "220 mj_testsmtpd ESMTP");
}

/* xact_reset - forget the envelope of the current transaction */
void
xact_reset(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nrcpt; i++)
		free(s->rcpts[i]);
	free(s->rcpts);
	free(s->from);
	s->rcpts = NULL;
	s->from = NULL;
	s->nrcpt = 0;
	s->have_mail = 0;
	record_save_discard(s);
}

/* address_of - the path inside <...> after "MAIL FROM:" or "RCPT TO:" */
static char *
address_of(const char *arg)
{
	const char *lt, *gt;

	while (*arg == ' ')
		arg++;
	if ((lt = strchr(arg, '<')) == NULL || (gt = strchr(lt, '>')) == NULL)
		return strdup(arg);
	return strndup(lt + 1, gt - lt - 1);
}

/* size_param - the SIZE= value of a MAIL command, or -1 */
static long long
size_param(const char *line)
{
	const char *p;

	for (p = line; (p = strchr(p, ' ')) != NULL; p++)
		if (strncasecmp(p + 1, "SIZE=", 5) == 0)
			return atoll(p + 6);
	return -1;
}

/* cmd_ehlo - answer EHLO with the advertised extensions */
static void
cmd_ehlo(struct session *s)
{
	char buf[512];

	stage_enter(s, ST_EHLO);
	snprintf(buf, sizeof(buf),
	    "250-mj_testsmtpd\r\n%s250-SIZE %ld\r\n%s%s"
	    "250 ENHANCEDSTATUSCODES",
	    cf.no_pipelining ? "" : "250-PIPELINING\r\n", cf.size_limit,
	    cf.no_8bitmime ? "" : "250-8BITMIME\r\n",
	    tls_offered(s) ? "250-STARTTLS\r\n" : "");
	xact_reset(s);
	reply(s, ST_EHLO, buf);
}

/* cmd_mail - MAIL FROM: start a transaction */
static void
cmd_mail(struct session *s, const char *arg)
{
	long long size = size_param(arg);

	stage_enter(s, ST_MAIL);
	if (s->have_mail) {
		reply(s, ST_MAIL, "503 5.5.1 nested MAIL command");
		return;
	}
	if (cf.size_limit > 0 && size > cf.size_limit) {
		reply(s, ST_MAIL, "552 5.3.4 message size exceeds limit");
		return;
	}
	if ((s->from = address_of(arg)) == NULL)
		err(1, "strdup");
	s->mail_size = size;
	reply(s, ST_MAIL, "250 2.1.0 Ok");
	if (conf_at(s, ST_MAIL)->reply != NULL &&
	    conf_at(s, ST_MAIL)->reply[0] != '2')
		xact_reset(s);
	else
		s->have_mail = 1;
}

/* cmd_rcpt - RCPT TO: rules, limit, then accept */
static void
cmd_rcpt(struct session *s, const char *arg)
{
	const char *text = "250 2.1.5 Ok";
	const char *rule;
	char *addr;

	stage_enter(s, ST_RCPT);
	if (!s->have_mail) {
		reply(s, ST_RCPT, "503 5.5.1 need MAIL command");
		return;
	}
	if ((addr = address_of(arg)) == NULL)
		err(1, "strdup");
	if (cf.rcpt_limit > 0 && s->nrcpt >= (size_t)cf.rcpt_limit)
		text = "452 4.5.3 too many recipients";
	else {
		if (conf_at(s, ST_RCPT)->reply != NULL)
			text = conf_at(s, ST_RCPT)->reply;
		if ((rule = rcpt_rule_reply(addr)) != NULL)
			text = rule;
	}
	reply(s, ST_RCPT, text);
	/* --drop rcpt has closed the session: no envelope to add to */
	if (text[0] != '2' || s->mode == M_CLOSED) {
		free(addr);
		return;
	}
	if ((s->rcpts = reallocarray(
		 s->rcpts, s->nrcpt + 1, sizeof(*s->rcpts))) == NULL)
		err(1, "reallocarray");
	s->rcpts[s->nrcpt++] = addr;
}

/* cmd_data - DATA: open the save file and switch to data mode */
static void
cmd_data(struct session *s)
{
	stage_enter(s, ST_DATA);
	if (!s->have_mail || s->nrcpt == 0) {
		reply(s, ST_DATA, "554 5.5.1 no valid recipients");
		return;
	}
	reply(s, ST_DATA, "354 End data with <CR><LF>.<CR><LF>");
	/* --drop data has closed the session: it must stay closed */
	if (s->mode == M_CLOSED || (conf_at(s, ST_DATA)->reply != NULL &&
				       conf_at(s, ST_DATA)->reply[0] != '3'))
		return;
	stage_enter(s, ST_BODY);
	s->mode = M_DATA;
	s->dstate = D_BOL;
	s->dsize = 0;
	s->xact++;
	record_save_open(s);
}

/* data_end - end of DATA: reply, log the recipients, keep the message */
static void
data_end(struct session *s)
{
	char buf[128];
	const char *text = buf;
	unsigned long msg = next_msg_id;

	record_trace_eod(s);
	stage_enter(s, ST_EOD);
	s->mode = M_CMD;
	if (cf.size_limit > 0 && s->dsize > cf.size_limit)
		text = "552 5.3.4 message size exceeds limit";
	else if (cf.check_size && s->mail_size >= 0 && s->dsize > s->mail_size)
		/* RFC 1870: SIZE= counts CRLFs, not the doubled dots */
		snprintf(buf, sizeof(buf),
		    "554 5.6.0 message of %lld bytes, SIZE=%lld said", s->dsize,
		    s->mail_size);
	else
		snprintf(buf, sizeof(buf), "250 2.0.0 Ok: queued as %lu", msg);
	if (conf_at(s, ST_EOD)->reply != NULL)
		text = conf_at(s, ST_EOD)->reply;
	if (text[0] == '2' && conf_at(s, ST_EOD)->fault == F_NONE) {
		next_msg_id++;
		record_delivery(s, msg);
	}
	xact_reset(s);
	reply(s, ST_EOD, text);
}

/* session_data - consume message text; 1 when the final dot was seen */
static int
session_data(struct session *s, size_t *used)
{
	size_t i;
	int c;

	for (i = 0; i < s->inlen; i++) {
		c = (unsigned char)s->in[i];
		switch (s->dstate) {
		case D_BOL:
			if (c == '.') {
				s->dstate = D_DOT;
				continue;
			}
			s->dstate = c == '\r' ? D_CR : D_MID;
			break;
		case D_MID:
			if (c == '\r')
				s->dstate = D_CR;
			break;
		case D_CR:
			s->dstate = c == '\n'	? D_BOL
				    : c == '\r' ? D_CR
						: D_MID;
			break;
		case D_DOT:
			if (c == '\r') {
				s->dstate = D_DOTCR;
				continue;
			}
			s->dstate = D_MID; /* the stuffed dot is dropped */
			break;
		case D_DOTCR:
			if (c == '\n') {
				*used = i + 1;
				return 1;
			}
			/* ".\r" then not LF: keep the CR, drop the dot. */
			s->dsize++;
			if (s->save != NULL)
				putc('\r', s->save);
			s->dstate = c == '\r' ? D_CR : D_MID;
			break;
		}
		s->dsize++;
		if (s->save != NULL)
			putc(c, s->save);
	}
	*used = i;
	return 0;
}

/* session_command - execute one command line */
static void
session_command(struct session *s, char *line)
{
	record_trace(s, line);
	if (strncasecmp(line, "EHLO", 4) == 0)
		cmd_ehlo(s);
	else if (strncasecmp(line, "HELO", 4) == 0) {
		stage_enter(s, ST_HELO);
		xact_reset(s);
		reply(s, ST_HELO, "250 mj_testsmtpd");
	} else if (strncasecmp(line, "MAIL FROM:", 10) == 0)
		cmd_mail(s, line + 10);
	else if (strncasecmp(line, "RCPT TO:", 8) == 0)
		cmd_rcpt(s, line + 8);
	else if (strcasecmp(line, "DATA") == 0)
		cmd_data(s);
	else if (strcasecmp(line, "RSET") == 0) {
		stage_enter(s, ST_RSET);
		xact_reset(s);
		reply(s, ST_RSET, "250 2.0.0 Ok");
	} else if (strcasecmp(line, "NOOP") == 0)
		out_append(s, "250 2.0.0 Ok\r\n", 14);
	else if (strcasecmp(line, "STARTTLS") == 0 && tls_offered(s)) {
		stage_enter(s, ST_STARTTLS);
		xact_reset(s);
		reply(s, ST_STARTTLS, "220 2.0.0 Ready to start TLS");
		if (conf_at(s, ST_STARTTLS)->reply == NULL ||
		    conf_at(s, ST_STARTTLS)->reply[0] == '2')
			s->tls_next = 1;
		/* In the same write as the 220: the client reads both at
		 * once, as it would from a man in the middle. */
		if (s->tls_next && cf.tls_inject != NULL) {
			out_append(s, cf.tls_inject, strlen(cf.tls_inject));
			out_append(s, "\r\n", 2);
		}
	} else if (strcasecmp(line, "QUIT") == 0) {
		stage_enter(s, ST_QUIT);
		reply(s, ST_QUIT, "221 2.0.0 Bye");
		s->close_after = 1;
	} else
		out_append(s, "502 5.5.2 command not recognized\r\n", 34);
}

/* session_input - work through buffered input until blocked */
void
session_input(struct session *s)
{
	size_t used, len;
	char *lf;

	for (;;) {
		if (s->mode == M_CLOSED || s->close_after)
			return;
		if (s->pending != NULL) {
			if (now_ms() < s->wake)
				return;
			reply_now(s, s->pending_stage, s->pending);
			free(s->pending);
			s->pending = NULL;
			continue;
		}
		if (s->mode == M_SILENT) {
			s->inlen = 0;
			break;
		}
		if (s->inlen == 0)
			break;
		if (s->mode == M_DATA && conf_at(s, ST_BODY)->fault != F_NONE) {
			/* Some of the text has arrived: fail mid-DATA. */
			reply_now(s, ST_BODY, "");
			continue;
		} else if (s->mode == M_DATA) {
			if (session_data(s, &used))
				data_end(s);
		} else if ((lf = memchr(s->in, '\n', s->inlen)) == NULL) {
			if (s->inlen < sizeof(s->in))
				break;
			used = s->inlen; /* over-long line: drop it */
			s->skip_line = 1;
		} else {
			used = lf - s->in + 1;
			len = used - 1;
			if (len > 0 && s->in[len - 1] == '\r')
				len--;
			s->in[len] = '\0';
			if (s->skip_line) {
				s->skip_line = 0;
				out_append(
				    s, "500 5.5.2 line too long\r\n", 25);
			} else
				session_command(s, s->in);
		}
		if (s->mode == M_CLOSED)
			return;
		memmove(s->in, s->in + used, s->inlen - used);
		s->inlen -= used;
		/* Nothing sent before the handshake counts (RFC 3207 4). */
		if (s->tls_next)
			s->inlen = 0;
	}
	if (s->eof && s->pending == NULL && s->outlen == s->outoff)
		session_close(s);
}
