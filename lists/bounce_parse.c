/*
 * bounce_parse.c - which addresses a bounce is about.
 *
 * In the order of trust:
 *   1. VERP: list mail with verp = yes has the envelope sender
 *      <list>-owner+user=host@<domain>, a bounce probe
 *      <list>-owner+probe-<token>@<domain> (its token in probe); the MTA
 * records the address the bounce came to in Delivered-To (Postfix, qmail),
 * X-Original-To or Envelope-To (Exim), and the bounce's To is it too.
 *   2. an RFC 3464 report: Final-Recipient of each block whose Action
 *      is failed (delayed is a warning; nothing failed yet).
 *   3. the common non-standard reports: qmail's and Postfix's "<addr>:"
 *      lines, sendmail's "<addr>" after "fatal errors", Exim's indented
 *      address after "failed:".
 * Each failed address is judged (bounce_class.c): a report's block by
 * its Status and Diagnostic-Code, a prose address by the text after it
 * up to the next address, a VERP address by the report or the text.
 * Addresses past BOUNCE_ADDRS_MAX are counted in more, not kept.
 * A message counts as a bounce only when it looks like one: the null
 * envelope sender, a multipart/report, or MAILER-DAEMON/postmaster as
 * the author; anything else to the owner address is a human's, of which
 * only a probe's token is taken (an answer to the probe).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounce_parse.h"
#include "cmd_mime.h"
#include "header.h"

#define BOUNCE_TEXT_MAX 65536

/* bounce_add - remember a failed address once, with its class; its
 * index, or -1 (not an address, or one past the bound: counted in more) */
static int
bounce_add(struct bounce_found *bf, const char *addr, size_t n,
    enum bounce_class class)
{
	char a[NAME_ADDR_MAX + 1];
	size_t i;

	if (n == 0 || n > NAME_ADDR_MAX)
		return -1;
	memcpy(a, addr, n);
	a[n] = '\0';
	if (!name_addr_ok(a))
		return -1;
	for (i = 0; i < bf->n; i++)
		if (strcasecmp(bf->addr[i], a) == 0) {
			if (class > bf->class[i])
				bf->class[i] = class;
			return (int)i;
		}
	if (bf->n >= BOUNCE_ADDRS_MAX) {
		bf->more++;
		return -1;
	}
	(void)strlcpy(bf->addr[bf->n], a, sizeof(bf->addr[0])); /* n fits */
	bf->class[bf->n] = class;
	return (int)bf->n++;
}

/* bounce_verp - the subscriber encoded in <list>-owner+user=host@domain
 * in one of the headers that name the envelope recipient; 0 found */
static int
bounce_verp(const char *domain, const char *list, const char *text, size_t len,
    struct bounce_found *bf)
{
	static const char *const hdrs[] = {
	    "Delivered-To", "X-Original-To", "Envelope-To", "To"};
	char v[1024], addr[NAME_ADDR_MAX + 1], prefix[NAME_LIST_MAX + 16];
	char *eq, *at;
	size_t i, k;

	k = (size_t)snprintf(prefix, sizeof(prefix), "%s-owner+", list);
	for (i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
		if (cmd_mime_header(text, len, hdrs[i], v, sizeof(v)) == -1 ||
		    cmd_mime_addr(v, addr, sizeof(addr)) == -1 ||
		    strncasecmp(addr, prefix, k) != 0 ||
		    (at = strrchr(addr, '@')) == NULL ||
		    strcasecmp(at + 1, domain) != 0)
			continue;
		*at = '\0';
		if (strncasecmp(addr + k, "probe-", 6) == 0 &&
		    strlen(addr + k + 6) <= BOUNCE_PROBE_TOKEN_MAX) {
			(void)strlcpy(bf->probe, addr + k + 6,
			    sizeof(bf->probe)); /* its length checked */
			return 0;
		}
		if ((eq = strrchr(addr + k, '=')) == NULL)
			continue;
		*eq = '@';
		(void)bounce_add(
		    bf, addr + k, strlen(addr + k), BOUNCE_UNKNOWN);
		return 0;
	}
	return -1;
}

/* One per-recipient block of a delivery-status part, as read so far. */
struct dsn_block {
	const char *rcpt, *diag, *diag_end;
	size_t rlen;
	char status[16];
	int failed, delayed;
};

/* dsn_field - the value of field name in line p..nl, or NULL */
static const char *
dsn_field(const char *p, const char *nl, const char *name)
{
	size_t k = strlen(name);

	if ((size_t)(nl - p) <= k || strncasecmp(p, name, k) != 0)
		return NULL;
	for (p += k; p < nl && (*p == ' ' || *p == '\t'); p++)
		;
	return p;
}

/* dsn_flush - a block read: its recipient remembered when it failed */
static void
dsn_flush(struct dsn_block *b, struct bounce_found *bf, int *failed,
    int *delayed, enum bounce_class *strongest)
{
	enum bounce_class c;

	if (b->rcpt != NULL && b->failed) {
		c = b->diag != NULL
			? bounce_class_reply(b->diag,
			      (size_t)(b->diag_end - b->diag), b->status)
			: bounce_class(0, b->status, NULL);
		(void)bounce_add(bf, b->rcpt, b->rlen, c);
		if (c > *strongest)
			*strongest = c;
		*failed = 1;
	} else if (b->rcpt != NULL && b->delayed)
		*delayed = 1;
	memset(b, 0, sizeof(*b));
}

/* bounce_dsn - the failed Final-Recipients of a delivery-status part,
 * each judged by its Status and Diagnostic-Code; the strongest class */
static enum bounce_class
bounce_dsn(const char *p, size_t len, struct bounce_found *bf)
{
	const char *end = p + len, *nl, *v;
	struct dsn_block b;
	enum bounce_class strongest = BOUNCE_UNKNOWN;
	size_t k;
	int failed = 0, delayed = 0, in_diag = 0;

	memset(&b, 0, sizeof(b));
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (in_diag && p < nl && (*p == ' ' || *p == '\t')) {
			b.diag_end = nl; /* a folded Diagnostic-Code */
			continue;
		}
		in_diag = 0;
		if ((v = dsn_field(p, nl, "Final-Recipient:")) != NULL) {
			if (b.rcpt != NULL)
				dsn_flush(
				    &b, bf, &failed, &delayed, &strongest);
			/* "rfc822; addr": the address after the ';' */
			if ((v = memchr(v, ';', (size_t)(nl - v))) == NULL)
				continue;
			for (v++; v < nl && isspace((unsigned char)*v); v++)
				;
			for (k = 0; v + k < nl && !isspace((unsigned char)v[k]);
			     k++)
				;
			b.rcpt = v, b.rlen = k;
		} else if ((v = dsn_field(p, nl, "Action:")) != NULL) {
			/* The line may end the text: compare within it. */
			if (nl - v >= 6 && strncasecmp(v, "failed", 6) == 0)
				b.failed = 1;
			else if (nl - v >= 7 &&
				 strncasecmp(v, "delayed", 7) == 0)
				b.delayed = 1;
		} else if ((v = dsn_field(p, nl, "Status:")) != NULL) {
			k = (size_t)(nl - v) < sizeof(b.status) - 1
				? (size_t)(nl - v)
				: sizeof(b.status) - 1;
			memcpy(b.status, v, k);
			b.status[k] = '\0';
			b.status[strcspn(b.status, " \t\r(")] = '\0';
		} else if ((v = dsn_field(p, nl, "Diagnostic-Code:")) != NULL) {
			b.diag = v, b.diag_end = nl;
			in_diag = 1;
		} else if (p == nl || (p + 1 == nl && *p == '\r'))
			dsn_flush(&b, bf, &failed, &delayed, &strongest);
	}
	dsn_flush(&b, bf, &failed, &delayed, &strongest);
	bf->delayed = delayed && !failed;
	return strongest;
}

/* prose_judge - the class of the address at index i: the text after
 * its line, up to the next address's line */
static void
prose_judge(struct bounce_found *bf, int i, const char *from, const char *to)
{
	enum bounce_class c;

	if (i < 0 || to <= from)
		return;
	if ((c = bounce_class_reply(from, (size_t)(to - from), NULL)) >
	    bf->class[i])
		bf->class[i] = c;
}

/* bounce_prose - addresses in a non-standard report's text, each judged
 * by the text that follows it */
static void
bounce_prose(const char *p, size_t len, struct bounce_found *bf)
{
	const char *end = p + len, *nl, *e, *gt, *line, *since = NULL;
	int after = 0, i, last = -1;
	size_t n;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		line = p;
		/* the line's length, trailing space off, as a size: gcc's
		 * -fsanitize build cannot see that e - p is never negative */
		for (n = (size_t)(nl - p);
		     n > 0 && isspace((unsigned char)p[n - 1]); n--)
			;
		e = p + n;
		if (memmem(p, n, "failed", 6) != NULL ||
		    memmem(p, n, "fatal error", 11) != NULL)
			after = 1;
		i = -2;
		if (*p == '<' &&
		    (gt = memchr(p, '>', (size_t)(e - p))) != NULL &&
		    (gt + 1 == e || gt[1] == ':' || after))
			i = bounce_add(
			    bf, p + 1, (size_t)(gt - p - 1), BOUNCE_UNKNOWN);
		else if (after && e > p && (*p == ' ' || *p == '\t')) {
			while (p < e && isspace((unsigned char)*p))
				p++;
			if (memchr(p, ' ', (size_t)(e - p)) == NULL)
				i = bounce_add(
				    bf, p, (size_t)(e - p), BOUNCE_UNKNOWN);
		}
		if (i == -2)
			continue;
		if (since != NULL)
			prose_judge(bf, last, since, line);
		last = i, since = nl < end ? nl + 1 : end;
	}
	if (since != NULL)
		prose_judge(bf, last, since, end);
}

/* bounce_report_looks - a report by its type or its author */
int
bounce_report_looks(const char *text, size_t len)
{
	char v[1024], addr[NAME_ADDR_MAX + 1], type[128];

	if (cmd_mime_header(text, len, "Content-Type", v, sizeof(v)) == 0 &&
	    strncasecmp(v, "multipart/report", 16) == 0 &&
	    cmd_mime_param(v, "report-type", type, sizeof(type)) == 0 &&
	    strcasecmp(type, "delivery-status") == 0)
		return 1;
	return cmd_mime_header(text, len, "From", v, sizeof(v)) == 0 &&
	       cmd_mime_addr(v, addr, sizeof(addr)) == 0 &&
	       (strncasecmp(addr, "MAILER-DAEMON@", 14) == 0 ||
		   strncasecmp(addr, "postmaster@", 11) == 0);
}

/* bounce_looks - the message is a delivery report, not a human's mail */
static int
bounce_looks(const char *text, size_t len)
{
	char addr[NAME_ADDR_MAX + 1];

	return (header_return_path(text, len, addr, sizeof(addr)) == 0 &&
		   addr[0] == '\0') ||
	       bounce_report_looks(text, len);
}

/* bounce_parse - is it a bounce, and of which addresses */
void
bounce_parse(const char *domain, const char *list, const char *text, size_t len,
    struct bounce_found *bf)
{
	struct bounce_found verp;
	enum bounce_class strongest = BOUNCE_UNKNOWN;
	const char *part;
	size_t plen, i;
	char *body;
	int dsn = 0;

	memset(bf, 0, sizeof(*bf));
	memset(&verp, 0, sizeof(verp));
	if (!(bf->is_bounce = bounce_looks(text, len))) {
		/* a human's answer to a probe: its token, nothing else */
		if (bounce_verp(domain, list, text, len, &verp) == 0)
			memcpy(bf->probe, verp.probe, sizeof(bf->probe));
		return;
	}
	if (cmd_mime_find(text, len, "message/delivery-status", &part, &plen) ==
	    0) {
		strongest = bounce_dsn(part, plen, bf);
		dsn = bf->n > 0;
		if (bf->delayed)
			return;
	}
	/* VERP names the subscriber better than any report text; the report
	 * (or, without one, the whole text) says why. */
	if (bounce_verp(domain, list, text, len, &verp) == 0) {
		if (!dsn && cmd_mime_plain(text, len, BOUNCE_TEXT_MAX, &body,
				&plen) == 0) {
			bounce_prose(body, plen, bf);
			for (i = 0; i < bf->n; i++)
				if (bf->class[i] > strongest)
					strongest = bf->class[i];
			if (bf->n == 0)
				strongest =
				    bounce_class_reply(body, plen, NULL);
			free(body);
		}
		if (verp.probe[0] != '\0') {
			/* a probe's: the addresses the report names failed */
			memcpy(bf->probe, verp.probe, sizeof(bf->probe));
			return;
		}
		*bf = verp;
		bf->class[0] = strongest;
		bf->is_bounce = 1;
		return;
	}
	if (bf->n > 0)
		return;
	if (cmd_mime_plain(text, len, BOUNCE_TEXT_MAX, &body, &plen) == 0) {
		bounce_prose(body, plen, bf);
		free(body);
	}
}
