/*
 * bounce_parse.c - which addresses a bounce is about.
 *
 * In the order of trust:
 *   1. VERP: list mail with verp = yes has the envelope sender
 *      <list>-owner+user=host@<domain>; the MTA records the address the
 *      bounce came to in Delivered-To (Postfix, qmail), X-Original-To or
 *      Envelope-To (Exim), and the bounce's To is it too.
 *   2. an RFC 3464 report: Final-Recipient of each block whose Action
 *      is failed (delayed is a warning; nothing failed yet).
 *   3. the common non-standard reports: qmail's and Postfix's "<addr>:"
 *      lines, sendmail's "<addr>" after "fatal errors", Exim's indented
 *      address after "failed:".
 * A message counts as a bounce only when it looks like one: the null
 * envelope sender, a multipart/report, or MAILER-DAEMON/postmaster as
 * the author; anything else to the owner address is a human's.
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

/* bounce_add - remember a failed address once */
static void
bounce_add(struct bounce_found *bf, const char *addr, size_t n)
{
	char a[NAME_ADDR_MAX + 1];
	size_t i;

	if (n == 0 || n > NAME_ADDR_MAX)
		return;
	memcpy(a, addr, n);
	a[n] = '\0';
	if (!name_addr_ok(a) || bf->n >= BOUNCE_ADDRS_MAX)
		return;
	for (i = 0; i < bf->n; i++)
		if (strcasecmp(bf->addr[i], a) == 0)
			return;
	(void)strlcpy(bf->addr[bf->n++], a, sizeof(bf->addr[0])); /* n fits */
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
		if ((eq = strrchr(addr + k, '=')) == NULL)
			continue;
		*eq = '@';
		bounce_add(bf, addr + k, strlen(addr + k));
		return 0;
	}
	return -1;
}

/* bounce_dsn - the failed Final-Recipients of a delivery-status part */
static void
bounce_dsn(const char *p, size_t len, struct bounce_found *bf)
{
	const char *end = p + len, *nl, *v, *rcpt = NULL;
	size_t rlen = 0, k;
	int failed = 0, delayed = 0;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((size_t)(nl - p) > 16 &&
		    strncasecmp(p, "Final-Recipient:", 16) == 0) {
			/* "rfc822; addr": the address after the ';' */
			if ((v = memchr(p, ';', (size_t)(nl - p))) == NULL)
				continue;
			for (v++; v < nl && isspace((unsigned char)*v); v++)
				;
			for (k = 0; v + k < nl && !isspace((unsigned char)v[k]);
			     k++)
				;
			rcpt = v, rlen = k;
		} else if ((size_t)(nl - p) > 7 &&
			   strncasecmp(p, "Action:", 7) == 0 && rcpt != NULL) {
			for (v = p + 7; v < nl && *v == ' '; v++)
				;
			/* The line may end the text: compare within it. */
			if (nl - v >= 6 && strncasecmp(v, "failed", 6) == 0) {
				bounce_add(bf, rcpt, rlen);
				failed = 1;
			} else if (nl - v >= 7 &&
				   strncasecmp(v, "delayed", 7) == 0)
				delayed = 1;
			rcpt = NULL;
		}
	}
	bf->delayed = delayed && !failed;
}

/* bounce_prose - addresses in a non-standard report's text */
static void
bounce_prose(const char *p, size_t len, struct bounce_found *bf)
{
	const char *end = p + len, *nl, *e, *gt;
	int after = 0;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		for (e = nl; e > p && isspace((unsigned char)e[-1]); e--)
			;
		if (memmem(p, (size_t)(e - p), "failed", 6) != NULL ||
		    memmem(p, (size_t)(e - p), "fatal error", 11) != NULL)
			after = 1;
		if (*p == '<' &&
		    (gt = memchr(p, '>', (size_t)(e - p))) != NULL &&
		    (gt + 1 == e || gt[1] == ':' || after))
			bounce_add(bf, p + 1, (size_t)(gt - p - 1));
		else if (after && e > p && (*p == ' ' || *p == '\t')) {
			while (p < e && isspace((unsigned char)*p))
				p++;
			if (memchr(p, ' ', (size_t)(e - p)) == NULL)
				bounce_add(bf, p, (size_t)(e - p));
		}
	}
}

/* bounce_looks - the message is a delivery report, not a human's mail */
static int
bounce_looks(const char *text, size_t len)
{
	char v[1024], addr[NAME_ADDR_MAX + 1], type[128];

	if (header_return_path(text, len, addr, sizeof(addr)) == 0 &&
	    addr[0] == '\0')
		return 1;
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

/* bounce_parse - is it a bounce, and of which addresses */
void
bounce_parse(const char *domain, const char *list, const char *text, size_t len,
    struct bounce_found *bf)
{
	struct bounce_found verp;
	const char *part;
	size_t plen;
	char *body;

	memset(bf, 0, sizeof(*bf));
	memset(&verp, 0, sizeof(verp));
	if (!(bf->is_bounce = bounce_looks(text, len)))
		return;
	if (cmd_mime_find(text, len, "message/delivery-status", &part, &plen) ==
	    0) {
		bounce_dsn(part, plen, bf);
		if (bf->delayed)
			return;
	}
	/* VERP names the subscriber better than any report text. */
	if (bounce_verp(domain, list, text, len, &verp) == 0) {
		*bf = verp;
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
