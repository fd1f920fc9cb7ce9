/*
 * bounce_class.c - judge a failed delivery by its cause.
 *
 * A failure is one of five classes (bounce_class.h).  Only a recipient
 * failure, and a mailbox failure that lasts, say anything against a
 * subscriber; a policy failure (the receiver refuses the list server:
 * blocklists, spam filters, DMARC, rate limits) is the list server's
 * problem, and a transient one is the network's.
 *
 * The judgement, in order:
 *   1. the enhanced status code (RFC 3463), when it decides by itself
 *      (code_table below): X.1.1 bad mailbox, X.1.2 bad domain, X.1.3
 *      bad syntax, X.1.6 moved, X.1.10 null MX / recipient not found and
 *      5.2.1 disabled are recipient failures when permanent; X.2.2 full
 *      and X.2.3 too big for the mailbox are mailbox failures; X.7.x and
 *      X.5.3 (too many recipients) are policy.  A temporary recipient
 *      code (4.1.1: not known yet) is transient.
 *   2. else the reply text, the first row of text_table that matches
 *      (case-insensitive substrings).  Policy rows come first: calling a
 *      blocklisting a recipient failure costs subscribers, the reverse
 *      costs only a slower removal.
 *   3. else the reply code: 4xx transient, 5xx unknown.
 * A temporary failure is never a recipient failure: 4.x.x or 4xx with a
 * recipient text is transient.  The replies that prove each row are in
 * t/73-bounce.bats (mj_bounceclass), taken from real servers.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bounce_class.h"

#define CLASS_TEXT_MAX 2048

/* Enhanced status codes that decide by themselves: subject.detail, -1 any
 * detail; the class when permanent (5) and when temporary (4). */
static const struct {
	int subject, detail;
	enum bounce_class perm, temp;
} code_table[] = {
    {1, 1, BOUNCE_RECIPIENT, BOUNCE_TRANSIENT},	 /* bad mailbox */
    {1, 2, BOUNCE_RECIPIENT, BOUNCE_TRANSIENT},	 /* bad domain */
    {1, 3, BOUNCE_RECIPIENT, BOUNCE_TRANSIENT},	 /* bad syntax */
    {1, 6, BOUNCE_RECIPIENT, BOUNCE_TRANSIENT},	 /* mailbox moved */
    {1, 10, BOUNCE_RECIPIENT, BOUNCE_TRANSIENT}, /* null MX, not found */
    {2, 2, BOUNCE_MAILBOX, BOUNCE_MAILBOX},	 /* mailbox full */
    {2, 3, BOUNCE_MAILBOX, BOUNCE_MAILBOX},	 /* too big for it */
    {5, 3, BOUNCE_POLICY, BOUNCE_POLICY},	 /* too many recipients */
    {7, -1, BOUNCE_POLICY, BOUNCE_POLICY},	 /* security, policy */
};

/* 5.2.1 "mailbox disabled" is a recipient failure, but 4.2.1 is mostly
 * "receiving mail too quickly": its text decides. */
#define DISABLED_SUBJECT 2
#define DISABLED_DETAIL 1

/* Reply texts, first match wins (lowercase substrings). */
static const struct {
	const char *text;
	enum bounce_class class;
} text_table[] = {
    /* policy: blocklists, spam and content filters, authentication,
     * rate limits, complaints */
    {"spamhaus", BOUNCE_POLICY},
    {"spamcop", BOUNCE_POLICY},
    {"barracuda", BOUNCE_POLICY},
    {"block list", BOUNCE_POLICY},
    {"blocklist", BOUNCE_POLICY},
    {"black list", BOUNCE_POLICY},
    {"blacklist", BOUNCE_POLICY},
    {"blocked", BOUNCE_POLICY},
    {"spam", BOUNCE_POLICY},
    {"dmarc", BOUNCE_POLICY},
    {"dkim", BOUNCE_POLICY},
    {"spf", BOUNCE_POLICY},
    {"policy", BOUNCE_POLICY},
    {"reputation", BOUNCE_POLICY},
    {"complaints", BOUNCE_POLICY},
    {"too many", BOUNCE_POLICY},
    {"too quickly", BOUNCE_POLICY},
    {"rate limit", BOUNCE_POLICY},
    {"unusual rate", BOUNCE_POLICY},
    {"administrative prohibition", BOUNCE_POLICY},
    {"sender verify failed", BOUNCE_POLICY},
    /* mailbox: full or over quota */
    {"over quota", BOUNCE_MAILBOX},
    {"quota exceeded", BOUNCE_MAILBOX},
    {"exceeded storage", BOUNCE_MAILBOX},
    {"mailbox full", BOUNCE_MAILBOX},
    {"mailbox is full", BOUNCE_MAILBOX},
    {"mailbox size limit", BOUNCE_MAILBOX},
    /* recipient: no such user, account, mailbox or domain */
    {"user unknown", BOUNCE_RECIPIENT},
    {"unknown user", BOUNCE_RECIPIENT},
    {"no such user", BOUNCE_RECIPIENT},
    {"unknown recipient", BOUNCE_RECIPIENT},
    {"recipient unknown", BOUNCE_RECIPIENT},
    {"recipient not found", BOUNCE_RECIPIENT},
    {"recipientnotfound", BOUNCE_RECIPIENT},
    {"invalid recipient", BOUNCE_RECIPIENT},
    {"no such recipient", BOUNCE_RECIPIENT},
    {"does not exist", BOUNCE_RECIPIENT},
    {"doesn't exist", BOUNCE_RECIPIENT},
    {"doesn't have a", BOUNCE_RECIPIENT},
    {"no mailbox", BOUNCE_RECIPIENT},
    {"no such mailbox", BOUNCE_RECIPIENT},
    {"mailbox not found", BOUNCE_RECIPIENT},
    {"mailbox unavailable", BOUNCE_RECIPIENT},
    {"mailbox disabled", BOUNCE_RECIPIENT},
    {"account is disabled", BOUNCE_RECIPIENT},
    {"account has been disabled", BOUNCE_RECIPIENT},
    {"recipient address rejected: access denied", BOUNCE_RECIPIENT},
    {"unrouteable address", BOUNCE_RECIPIENT},
    {"host or domain name not found", BOUNCE_RECIPIENT},
    {"no such domain", BOUNCE_RECIPIENT},
    /* transient: come back later */
    {"greylist", BOUNCE_TRANSIENT},
    {"graylist", BOUNCE_TRANSIENT},
    {"try again later", BOUNCE_TRANSIENT},
    {"temporarily", BOUNCE_TRANSIENT},
    {"temporary", BOUNCE_TRANSIENT},
    {"deferred", BOUNCE_TRANSIENT},
    {"timed out", BOUNCE_TRANSIENT},
};

/* status_parse - "C.S.D" at p: class, subject, detail and its length,
 * or 0 when p holds none (three numbers, C 2, 4 or 5, not within a
 * longer run of digits and dots) */
static size_t
status_parse(const char *p, const char *end, int *c, int *s, int *d)
{
	const char *q = p;
	long v[3];
	int i, k;

	if (p >= end || (*p != '2' && *p != '4' && *p != '5'))
		return 0;
	for (i = 0; i < 3; i++) {
		if (i > 0 && (q >= end || *q++ != '.'))
			return 0;
		for (v[i] = 0, k = 0;
		     q < end && isdigit((unsigned char)*q) && k < 4; q++, k++)
			v[i] = v[i] * 10 + (*q - '0');
		if (k == 0 || k > 3)
			return 0;
	}
	if (q < end && (*q == '.' || isdigit((unsigned char)*q)))
		return 0;
	*c = (int)v[0], *s = (int)v[1], *d = (int)v[2];
	return (size_t)(q - p);
}

/* status_find - the first enhanced status code in text; 0 none */
static int
status_find(const char *p, size_t len, int *c, int *s, int *d)
{
	const char *end = p + len, *q;

	for (q = p; q < end; q++)
		if ((q == p ||
			(!isdigit((unsigned char)q[-1]) && q[-1] != '.')) &&
		    status_parse(q, end, c, s, d) > 0)
			return 1;
	return 0;
}

/* class_by_code - the class an enhanced status code decides alone, or -1 */
static int
class_by_code(int c, int s, int d)
{
	size_t i;

	if (c != 4 && c != 5)
		return -1;
	if (c == 5 && s == DISABLED_SUBJECT && d == DISABLED_DETAIL)
		return BOUNCE_RECIPIENT;
	for (i = 0; i < sizeof(code_table) / sizeof(code_table[0]); i++)
		if (code_table[i].subject == s &&
		    (code_table[i].detail == -1 || code_table[i].detail == d))
			return c == 5 ? code_table[i].perm : code_table[i].temp;
	return -1;
}

/* class_by_text - the first text_table row in text, or -1 */
static int
class_by_text(const char *text)
{
	size_t i;

	for (i = 0; i < sizeof(text_table) / sizeof(text_table[0]); i++)
		if (strcasestr(text, text_table[i].text) != NULL)
			return text_table[i].class;
	return -1;
}

/* bounce_class - the class of a failure (code, status, text) */
enum bounce_class
bounce_class(int code, const char *status, const char *text)
{
	int c = 0, s, d, k, temp;

	if (status != NULL &&
	    status_parse(status, status + strlen(status), &c, &s, &d) == 0)
		c = 0;
	temp = c == 4 || (c == 0 && code / 100 == 4);
	if (c != 0 && (k = class_by_code(c, s, d)) != -1)
		return (enum bounce_class)k;
	if (text != NULL && (k = class_by_text(text)) != -1)
		return temp && k == BOUNCE_RECIPIENT ? BOUNCE_TRANSIENT
						     : (enum bounce_class)k;
	return temp ? BOUNCE_TRANSIENT : BOUNCE_UNKNOWN;
}

/* class_copy - text as one line: each run of blanks and line breaks
 * (a folded Diagnostic-Code, an NDR's wrapped prose) one space, NUL
 * bytes left out, at most buflen - 1 bytes */
static void
class_copy(char *buf, size_t buflen, const char *text, size_t len)
{
	size_t i, k = 0;

	for (i = 0; i < len && k + 1 < buflen; i++) {
		if (text[i] == '\0')
			continue;
		if (!isspace((unsigned char)text[i]))
			buf[k++] = text[i];
		else if (k > 0 && buf[k - 1] != ' ')
			buf[k++] = ' ';
	}
	buf[k] = '\0';
}

/* bounce_class_reply - the class of a reply, diagnostic or NDR text */
enum bounce_class
bounce_class_reply(const char *text, size_t len, const char *status)
{
	char buf[CLASS_TEXT_MAX + 1], st[16];
	const char *p = text, *end;
	int code = 0, c, s, d;

	class_copy(buf, sizeof(buf), text, len);
	end = buf + strlen(buf);
	p = buf;
	/* a diagnostic-type ("smtp;") and blanks before the reply code */
	if ((size_t)(end - p) >= 5 && strncasecmp(p, "smtp;", 5) == 0)
		p += 5;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (end - p >= 3 && strchr("245", p[0]) != NULL &&
	    isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
	    (end - p == 3 || p[3] == ' ' || p[3] == '-'))
		code = (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
	if ((status == NULL || status[0] == '\0') &&
	    status_find(buf, (size_t)(end - buf), &c, &s, &d)) {
		/* three numbers of at most three digits: it fits */
		if (snprintf(st, sizeof(st), "%d.%d.%d", c, s, d) <
		    (int)sizeof(st))
			status = st;
	}
	return bounce_class(code, status, buf);
}

/* bounce_class_name - the class's name, as logged and counted */
const char *
bounce_class_name(enum bounce_class c)
{
	static const char *const names[BOUNCE_CLASSES] = {
	    "unknown", "transient", "policy", "mailbox", "recipient"};

	return (unsigned)c < BOUNCE_CLASSES ? names[c] : "unknown";
}
