/*
 * bounce_parse.c - which addresses a bounce is about, and why each
 * failed.
 *
 * In the order of trust:
 *   1. VERP: list mail with verp = yes (and every copy of a one-click
 *      list, and every probe) has the envelope sender
 *      <list>-owner+user=host@<domain>, a bounce probe
 *      <list>-owner+probe-<token>@<domain> (its token in probe); the MTA
 *      records the address the bounce came to in Delivered-To (Postfix,
 *      qmail), X-Original-To or Envelope-To (Exim), and the bounce's To
 *      is it too.
 *   2. the report's own evidence (bounce_report.c: the notification
 *      and the delivery status, never the returned message), read by the
 *      first reader that finds a failed address (bounce_read.h): RFC 3464
 *      fields (in their part, else inline in the text), a provider's
 *      JSON, X-Failed-Recipients, the notification's prose by family.
 * Each failed address is judged by all the report says of it
 * (bounce_class.c); a VERP address by what the report says of the
 * failure.  A report that only warns of a delay names its addresses as
 * transient, with delayed set.  Addresses past BOUNCE_ADDRS_MAX are
 * counted in more, not kept.
 * A message counts as a bounce only when it looks like one: the null
 * envelope sender (or MAILER-DAEMON/postmaster as the sender), a
 * multipart/report of delivery status, MAILER-DAEMON/postmaster as the
 * author, or a provider's JSON notification of bounced recipients
 * (Amazon SES, from its own sender); anything else to the owner address
 * is a human's, of which only a probe's token is taken (an answer to
 * the probe).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bounce_parse.h"
#include "copy_rcpt.h"
#include "bounce_read.h"
#include "bounce_report.h"
#include "cmd_mime.h"
#include "header.h"

#define PARSE_REASON_MAX 1024

/* Texts of a notification that only warns: nothing failed yet. */
static const char *const delay_marks[] = {
    "WARNING MESSAGE ONLY", /* Gmail, Outlook.com, sendmail */
    "has been delayed",	    /* Gmail, Outlook.com */
    "Delivery delayed",	    /* Exchange, Office 365 */
    "will be retried",	    /* Gmail */
    "This is a delivery status notification, not a bounce", /* Courier */
};

/* bounce_verp - the subscriber encoded in <list>-owner+user=host@domain
 * (copy_rcpt_verp, the one VERP decoder), or a probe's token in
 * <list>-owner+probe-<token>@domain, in one of the headers that name the
 * envelope recipient; 0 found */
static int
bounce_verp(const char *domain, const char *list, const char *text, size_t len,
    struct bounce_found *bf)
{
	static const char *const hdrs[] = {
	    "Delivered-To", "X-Original-To", "Envelope-To", "To"};
	char v[1024], addr[NAME_ADDR_MAX + 1], sub[NAME_ADDR_MAX + 1];
	char prefix[NAME_LIST_MAX + 32];
	char *at;
	size_t i, k;

	k = (size_t)snprintf(prefix, sizeof(prefix), "%s-owner+probe-", list);
	for (i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
		if (header_value(text, len, hdrs[i], v, sizeof(v)) == -1 ||
		    header_addr(v, addr, sizeof(addr)) == -1)
			continue;
		if (copy_rcpt_verp(domain, list, addr, sub, sizeof(sub)) == 0) {
			(void)bounce_found_add(
			    bf, "VERP", sub, strlen(sub), NULL, NULL, 0);
			return 0;
		}
		if (strncasecmp(addr, prefix, k) != 0 ||
		    (at = strrchr(addr, '@')) == NULL ||
		    strcasecmp(at + 1, domain) != 0)
			continue;
		*at = '\0';
		if (strlen(addr + k) <= BOUNCE_PROBE_TOKEN_MAX) {
			(void)strlcpy(bf->probe, addr + k,
			    sizeof(bf->probe)); /* its length checked */
			return 0;
		}
	}
	return -1;
}

/* looks_daemon - addr is a mail system's own: MAILER-DAEMON or
 * postmaster, at a domain or bare (From: mailer-daemon, as X6 writes) */
static int
looks_daemon(const char *addr)
{
	return strncasecmp(addr, "MAILER-DAEMON@", 14) == 0 ||
	       strncasecmp(addr, "postmaster@", 11) == 0 ||
	       strcasecmp(addr, "MAILER-DAEMON") == 0 ||
	       strcasecmp(addr, "postmaster") == 0;
}

/* bounce_report_looks - a report by its type or its author */
int
bounce_report_looks(const char *text, size_t len)
{
	char v[1024], addr[NAME_ADDR_MAX + 1], type[128];

	/* a report-type other than delivery-status (an ARF complaint) is
	 * not a bounce; none at all (X3 gateways) is taken for one */
	if (header_value(text, len, "Content-Type", v, sizeof(v)) == 0 &&
	    strncasecmp(v, "multipart/report", 16) == 0 &&
	    (cmd_mime_param(v, "report-type", type, sizeof(type)) == -1 ||
		strcasecmp(type, "delivery-status") == 0))
		return 1;
	if (header_value(text, len, "From", v, sizeof(v)) == -1)
		return 0;
	if (header_addr(v, addr, sizeof(addr)) == 0)
		return looks_daemon(addr);
	v[strcspn(v, " \t\r\n")] = '\0'; /* a bare word, as X6 writes */
	return looks_daemon(v);
}

/* parse_delay - the notification only warns of a delay */
static int
parse_delay(const struct bounce_report *r)
{
	size_t i;

	for (i = 0; r->text != NULL &&
		    i < sizeof(delay_marks) / sizeof(delay_marks[0]);
	     i++)
		if (strcasestr(r->text, delay_marks[i]) != NULL)
			return 1;
	return 0;
}

/* parse_late - the addresses of a delay warning: transient, delayed */
static void
parse_late(struct bounce_found *bf)
{
	size_t i;

	bf->delayed = 1;
	for (i = 0; i < bf->n; i++) {
		bf->class[i] = BOUNCE_TRANSIENT;
		(void)strlcpy(bf->why[i], "a delay warning: nothing failed yet",
		    sizeof(bf->why[i])); /* fits */
	}
}

/* parse_more - what the notification says of each address found in
 * the delivery status: it decides where the status said nothing (no
 * rule: "unknown"), and a policy its words name wins ("550 Unknown
 * user" in the status, "in reply to end of DATA" in the text: a
 * filter); a code in it does not (a transcript quotes other replies) */
static void
parse_more(struct bounce_found *bf, const struct bounce_report *r)
{
	const char *text, *from;
	char why[BOUNCE_WHY_MAX];
	size_t i, rlen;
	enum bounce_class c;

	for (i = 0; r->text != NULL && i < bf->n; i++)
		for (from = r->text;; from = text + rlen) {
			/* each paragraph that names it */
			text = bounce_read_reason(from,
			    (size_t)(r->text + r->len - from), bf->addr[i],
			    PARSE_REASON_MAX, &rlen);
			if (rlen == 0)
				break;
			c = bounce_class_judge(
			    text, rlen, NULL, why, sizeof(why));
			if (bf->class[i] != BOUNCE_UNKNOWN &&
			    (c != BOUNCE_POLICY ||
				bf->class[i] == BOUNCE_POLICY ||
				strncmp(why, "text ", 5) != 0))
				continue;
			bf->class[i] = BOUNCE_UNKNOWN;
			bf->why[i][0] = '\0';
			bounce_found_judge(bf, (int)i, NULL, text, rlen);
		}
}

/* parse_also - the delayed recipients of a report that also names
 * failed ones: transient, not counted, but shown */
static void
parse_also(struct bounce_found *bf, const struct bounce_found *late)
{
	size_t i;
	int k;

	for (i = 0; i < late->n; i++)
		if ((k = bounce_found_add(bf, late->reader[i], late->addr[i],
			 strlen(late->addr[i]), NULL, NULL, 0)) != -1 &&
		    bf->why[k][0] == '\0') {
			bf->class[k] = BOUNCE_TRANSIENT;
			(void)strlcpy(bf->why[k], "delayed, not failed",
			    sizeof(bf->why[k])); /* fits */
			memcpy(bf->evidence[k], late->evidence[i],
			    sizeof(bf->evidence[k]));
		}
}

/* parse_report - the failed addresses of the report r, by the first
 * reader that finds any */
static void
parse_report(const char *text, size_t len, const struct bounce_report *r,
    struct bounce_found *bf)
{
	static __thread struct bounce_found late;

	memset(&late, 0, sizeof(late));
	if ((r->dsn != NULL &&
		bounce_read_dsn(r->dsn, r->dlen, bf, &late) > 0) ||
	    (r->text != NULL &&
		bounce_read_dsn(r->text, r->len, bf, &late) > 0)) {
		parse_more(bf, r);
		parse_also(bf, &late);
		return;
	}
	if (late.n > 0) {
		memcpy(bf->addr, late.addr, sizeof(late.addr));
		memcpy(bf->reader, late.reader, sizeof(late.reader));
		memcpy(bf->evidence, late.evidence, sizeof(late.evidence));
		bf->n = late.n, bf->more = late.more;
		parse_late(bf);
		return;
	}
	if (r->text == NULL)
		return;
	if (bounce_read_json(r->text, r->len, bf) == 0 &&
	    bounce_read_header(text, len, r->text, r->len, bf) == 0)
		(void)bounce_read_prose(text, len, r->text, r->len, bf);
	if (bf->n > 0 && parse_delay(r))
		parse_late(bf);
}

/* parse_verp - the VERP address in verp, judged by the strongest of the
 * report's failures (or its whole text) */
static void
parse_verp(struct bounce_found *verp, const struct bounce_found *bf,
    const struct bounce_report *r)
{
	size_t i, best = 0;

	for (i = 1; i < bf->n; i++)
		if (bf->class[i] > bf -> class[best])
			best = i;
	if (bf->n > 0) {
		verp->class[0] = bf->class[best];
		memcpy(verp->why[0], bf->why[best], sizeof(verp->why[0]));
		memcpy(verp->evidence[0], bf->evidence[best],
		    sizeof(verp->evidence[0]));
	} else if (r->text != NULL)
		bounce_found_judge(verp, 0, NULL, r->text,
		    r->len < PARSE_REASON_MAX ? r->len : PARSE_REASON_MAX);
	verp->delayed = bf->delayed;
}

/* bounce_looks - the message is a delivery report, not a human's mail */
static int
bounce_looks(const char *text, size_t len)
{
	char addr[NAME_ADDR_MAX + 1];

	return (header_return_path(text, len, addr, sizeof(addr)) == 0 &&
		   (addr[0] == '\0' || looks_daemon(addr))) ||
	       bounce_report_looks(text, len);
}

/* bounce_parse - is it a bounce, and of which addresses */
void
bounce_parse(const char *domain, const char *list, const char *text, size_t len,
    struct bounce_found *bf)
{
	static __thread struct bounce_found verp;
	struct bounce_report r;

	memset(bf, 0, sizeof(*bf));
	memset(&verp, 0, sizeof(verp));
	if (bounce_report_make(text, len, &r) == -1) {
		bf->is_bounce = bounce_looks(text, len);
		return; /* out of memory: no address, the owners get it */
	}
	/* a provider's notification comes from a sender of its own */
	if (!(bf->is_bounce = bounce_looks(text, len)) &&
	    (r.text == NULL || bounce_read_json(r.text, r.len, bf) == 0)) {
		memset(bf, 0, sizeof(*bf));
		bounce_report_free(&r);
		/* a human's answer to a probe: its token, nothing else */
		if (bounce_verp(domain, list, text, len, &verp) == 0)
			memcpy(bf->probe, verp.probe, sizeof(bf->probe));
		return;
	}
	memset(bf, 0, sizeof(*bf));
	bf->is_bounce = 1;
	parse_report(text, len, &r, bf);
	if (bounce_verp(domain, list, text, len, &verp) == 0) {
		if (verp.probe[0] != '\0') {
			/* a probe's: the addresses the report names failed */
			memcpy(bf->probe, verp.probe, sizeof(bf->probe));
			bounce_report_free(&r);
			return;
		}
		if (verp.n > 0)
			parse_verp(&verp, bf, &r);
		else
			verp.class[0] =
			    bf->n > 0 ? bf->class[0] : BOUNCE_UNKNOWN;
		*bf = verp;
		bf->is_bounce = 1;
	}
	bounce_report_free(&r);
}
