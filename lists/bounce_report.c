/*
 * bounce_report.c - what a delivery report says, apart from what it
 * returns.
 *
 * A report has three pieces: the notification a human reads, the
 * machine-readable delivery status (RFC 3464), and the returned message
 * or its headers.  Only the first two are evidence of whose delivery
 * failed and why; the returned message is whatever the poster wrote
 * (a quoted bounce, a DKIM header naming a policy) and is never read.
 *
 * The parts kept: text/plain parts (not inside a message/rfc822 part,
 * which is not descended into) and message/delivery-status parts (also
 * message/global-delivery-status, RFC 6533, and the text/ forms some
 * MTAs write).  Parts returned (message/rfc822, text/rfc822-headers,
 * message/rfc822-headers) are skipped.  A message that is no multipart,
 * or whose boundary matches nothing, is one text.  Each text is cut at
 * the first line of copy_marks (after blanks, dashes, '=' and '|'): the
 * separators the MTAs write above a copy inlined in the text, one a row
 * with who writes it.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounce_charset.h"
#include "bounce_report.h"
#include "cmd_mime.h"
#include "header.h"

#define REPORT_PART_MAX 65536
#define REPORT_MAX (4 * REPORT_PART_MAX)

/* Lines that begin a returned copy: a line starting with the text, after
 * blanks, dashes and an HTML <p>, case-insensitive. */
static const char *const copy_marks[] = {
    "below this line is a copy of the message",	 /* qmail */
    "enclosed is a copy of the message",	 /* qmail (vpopmail) */
    "this is a copy of the message",		 /* Exim */
    "this is a copy of the body of the message", /* Exim, body only */
    "original message -",			 /* Google Groups */
    "original message follows",			 /* IMail, Mail.ru */
    "unsent message follows",			 /* sendmail */
    "returned mail follows",			 /* sendmail 8 (old) */
    "returned message follows",			 /* various */
    "message headers follow",			 /* DragonFly */
    "original message headers",			 /* Exchange, Office 365 */
    "below is a copy of the original message",	 /* Amazon WorkMail */
    "the header of the original message is following", /* GMX */
    "included is a copy of the message header",	       /* Courier */
    "[from here, just a copy of the original message", /* fml */
    "original message header",			       /* MXLogic */
    "message text follows",			       /* MMDF, PP */
    "returned message",				       /* Lotus Notes */
    "content-type: message/rfc822",		       /* an inline part */
    "content-type: text/rfc822-headers",	       /* an inline part */
    "content-type: message/rfc822-headers",	       /* an inline part */
};

/* copy_line - the line (p, n) starts a returned copy */
static int
copy_line(const char *p, size_t n)
{
	size_t i, k;

	while (n > 0 && (*p == ' ' || *p == '\t' || *p == '-' || *p == '=' ||
			    *p == '|')) {
		p++;
		n--;
	}
	if (n >= 3 && strncasecmp(p, "<p>", 3) == 0)
		p += 3, n -= 3;
	for (i = 0; i < sizeof(copy_marks) / sizeof(copy_marks[0]); i++)
		if (n >= (k = strlen(copy_marks[i])) &&
		    strncasecmp(p, copy_marks[i], k) == 0)
			return 1;
	return 0;
}

/* bounce_report_copy - where the returned copy starts in text */
size_t
bounce_report_copy(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (copy_line(p, (size_t)(nl - p)))
			return (size_t)(p - text);
	}
	return len;
}

/* What report_part collects. */
struct report_acc {
	struct bounce_report *r;
	int parts, failed;
};

/* report_add - the decoded body (body, blen, cte) in UTF-8 (its charset
 * in the Content-Type value ct) appended to *buf, CRs dropped, cut at a copy
 * separator when cut; -1 out of memory */
static int
report_add(char **buf, size_t *len, const char *body, size_t blen,
    const char *cte, const char *ct, int cut)
{
	char *dec, *nb, cs[64];
	size_t dlen, i, k;

	if (cmd_mime_decoded(body, blen, cte, REPORT_PART_MAX, &dec, &dlen) ==
	    -1)
		return -1;
	if (cmd_mime_param(ct, "charset", cs, sizeof(cs)) == 0 &&
	    bounce_charset_utf8(cs, &dec, &dlen) == -1) {
		free(dec);
		return -1;
	}
	if (cut)
		dlen = bounce_report_copy(dec, dlen);
	if (*len + dlen + 2 > REPORT_MAX) {
		free(dec);
		return 0;
	}
	if ((nb = realloc(*buf, *len + dlen + 2)) == NULL) {
		free(dec);
		return -1;
	}
	for (i = 0, k = *len; i < dlen; i++)
		if (dec[i] != '\r' && dec[i] != '\0')
			nb[k++] = dec[i];
		else if (dec[i] == '\r' &&
			 (i + 1 == dlen || dec[i + 1] != '\n'))
			nb[k++] = '\n'; /* a bare CR ends a line too */
	nb[k++] = '\n';
	nb[k] = '\0';
	*buf = nb, *len = k;
	free(dec);
	return 0;
}

/* report_part - cmd_mime_each's callback: keep the parts of evidence */
static int
report_part(void *arg, const struct cmd_mime_part *p)
{
	struct report_acc *a = arg;
	struct bounce_report *r = a->r;
	int e = 0;

	if (strncmp(p->type, "multipart/", 10) == 0)
		return 0;
	a->parts++;
	if (strcmp(p->type, "message/delivery-status") == 0 ||
	    strcmp(p->type, "message/global-delivery-status") == 0 ||
	    strcmp(p->type, "text/delivery-status") == 0)
		e = report_add(
		    &r->dsn, &r->dlen, p->body, p->blen, p->cte, p->ct, 0);
	else if (strcmp(p->type, "text/plain") == 0 || p->type[0] == '\0')
		e = report_add(
		    &r->text, &r->len, p->body, p->blen, p->cte, p->ct, 1);
	if (e == -1) {
		a->failed = 1;
		return 1;
	}
	return 0;
}

/* bounce_report_make - the notification and status of a report */
int
bounce_report_make(const char *msg, size_t len, struct bounce_report *r)
{
	struct report_acc a;
	char ct[256], cte[64];
	const char *body;

	memset(r, 0, sizeof(*r));
	memset(&a, 0, sizeof(a));
	a.r = r;
	(void)cmd_mime_each(msg, len, report_part, &a);
	if (!a.failed && r->text == NULL && r->dsn == NULL &&
	    header_value(msg, len, "Content-Type", ct, sizeof(ct)) == 0 &&
	    strncasecmp(ct, "multipart/", 10) == 0) {
		/* a boundary that matches nothing: the body as one text */
		body = header_end(msg, len);
		if (header_value(msg, len, "Content-Transfer-Encoding", cte,
			sizeof(cte)) == -1)
			cte[0] = '\0';
		if (report_add(&r->text, &r->len, body,
			(size_t)(msg + len - body), cte, ct, 1) == -1)
			a.failed = 1;
	}
	if (a.failed) {
		bounce_report_free(r);
		return -1;
	}
	return 0;
}

/* bounce_report_free - the buffers of a report */
void
bounce_report_free(struct bounce_report *r)
{
	free(r->text);
	free(r->dsn);
	memset(r, 0, sizeof(*r));
}
