/*
 * bounce_class.c - judge a failed delivery by its cause.
 *
 * A failure is one of five classes (bounce_class.h).  Only a recipient
 * failure, and a mailbox failure that lasts, say anything against a
 * subscriber; a policy failure (the receiver refuses the list server:
 * blocklists, spam filters, DMARC, rate limits) is the list server's
 * problem, and a transient one is the network's.
 *
 * The evidence: the reply text (a Diagnostic-Code, an SMTP reply, an
 * NDR's prose), with its reply code and the enhanced status code in it,
 * and a DSN's Status field.  The most specific evidence decides first,
 * in the order bounce_rules.c gives with its rules: the code about the
 * sender, the policy texts, the reply's own detailed code, a policy
 * Status, the other texts, the reply's code of a subject alone (X.Y.0:
 * "other" within its subject, which X3 gateways send for anything), the
 * Status, the reply code.  A generic code (X.0.0) decides nothing.  A
 * temporary failure is never a recipient failure: 4.x.x or 4xx with a
 * recipient text is transient, unless a Status says the failure is
 * final (a DSN's Action: failed, bounce_read_dsn.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bounce_class.h"
#include "bounce_rules.h"

#define CLASS_TEXT_MAX 4096

/* An enhanced status code: class 0 when none. */
struct class_code {
	int c, s, d;
};

/* status_parse - "C.S.D" at p: its length, or 0 when p holds none
 * (three numbers, C 2, 4 or 5, not within a longer run of digits and
 * dots) */
static size_t
status_parse(const char *p, const char *end, struct class_code *cc)
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
	cc->c = (int)v[0], cc->s = (int)v[1], cc->d = (int)v[2];
	return (size_t)(q - p);
}

/* status_find - the first specific enhanced status code in text (a
 * generic X.0.0 is passed over), else the first generic one; and in
 * policy the first X.7.X (security, policy) or X.6.X (the message's
 * content) code, wherever it is (a relay's summary code first, the
 * receiver's own quoted after it) */
static void
status_find(
    const char *p, size_t len, struct class_code *cc, struct class_code *policy)
{
	const char *end = p + len, *q;
	struct class_code t;

	cc->c = policy->c = 0;
	for (q = p; q < end; q++)
		if ((q == p ||
			(!isdigit((unsigned char)q[-1]) && q[-1] != '.')) &&
		    status_parse(q, end, &t) > 0) {
			if ((t.s == 7 || t.s == 6) && policy->c == 0)
				*policy = t;
			if ((t.s != 0 || t.d != 0) &&
			    (cc->c == 0 || (cc->s == 0 && cc->d == 0)))
				*cc = t;
			else if (cc->c == 0)
				*cc = t;
		}
}

/* code_rule - the row of rules for code cc, or NULL */
static const struct bounce_code_rule *
code_rule(const struct bounce_code_rule *rules, const struct class_code *cc)
{
	const struct bounce_code_rule *r;

	if (cc->c != 4 && cc->c != 5)
		return NULL;
	for (r = rules; r->example != NULL; r++)
		if (r->subject == cc->s &&
		    (r->detail == -1 || r->detail == cc->d))
			return r;
	return NULL;
}

/* text_match - text (in lower case) holds pattern, case-blind, each
 * "*" in it any run */
static int
text_match(const char *text, const char *pattern)
{
	char piece[128];
	const char *p = pattern, *star;
	size_t n, i;

	for (;;) {
		star = strchr(p, '*');
		n = star != NULL ? (size_t)(star - p) : strlen(p);
		if (n >= sizeof(piece))
			n = sizeof(piece) - 1;
		for (i = 0; i < n; i++)
			piece[i] = (char)tolower((unsigned char)p[i]);
		piece[n] = '\0';
		if (n > 0) {
			if ((text = strstr(text, piece)) == NULL)
				return 0;
			text += n;
		}
		if (star == NULL)
			return 1;
		p = star + 1;
	}
}

/* text_rule - the first row of rules that text matches, or NULL */
static const struct bounce_text_rule *
text_rule(const struct bounce_text_rule *rules, const char *text)
{
	const struct bounce_text_rule *r;

	for (r = rules; r->text != NULL; r++)
		if (text_match(text, r->text))
			return r;
	return NULL;
}

/* class_copy - text as one line in lower case (ASCII letters): each run
 * of blanks and line breaks (a folded Diagnostic-Code, an NDR's wrapped
 * prose) one space, NUL bytes left out, at most buflen - 1 bytes */
static void
class_copy(char *buf, size_t buflen, const char *text, size_t len)
{
	size_t i, k = 0;

	for (i = 0; i < len && k + 1 < buflen; i++) {
		if (text[i] == '\0')
			continue;
		if (!isspace((unsigned char)text[i]))
			buf[k++] = (char)tolower((unsigned char)text[i]);
		else if (k > 0 && buf[k - 1] != ' ')
			buf[k++] = ' ';
	}
	buf[k] = '\0';
}

/* reply_code - the SMTP reply code at the start of buf ("smtp;" and
 * blanks first), or 0 */
static int
reply_code(const char *p)
{
	if (strncasecmp(p, "smtp;", 5) == 0)
		p += 5;
	while (*p == ' ')
		p++;
	if (strchr("245", p[0]) != NULL && p[0] != '\0' &&
	    isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
	    (p[3] == '\0' || p[3] == ' ' || p[3] == '-'))
		return (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
	return 0;
}

/* Where a judgement stands. */
struct judge {
	struct class_code reply, status, policy;
	int temp; /* a temporary failure, by any code */
	char *why;
	size_t wlen;
};

/* by_code - the class a code rule gives cc, said in why as from what */
static int
by_code(struct judge *j, const struct bounce_code_rule *rules,
    const struct class_code *cc, const char *what)
{
	const struct bounce_code_rule *r;

	if ((r = code_rule(rules, cc)) == NULL)
		return -1;
	if (j->why != NULL)
		(void)snprintf(j->why, j->wlen, "code %d.%d.%d in the %s",
		    cc->c, cc->s, cc->d, what); /* cut short: only a message */
	return j->temp ? (int)r->temp : (int)r->perm;
}

/* by_text - the class a text rule gives buf */
static int
by_text(struct judge *j, const struct bounce_text_rule *rules, const char *buf)
{
	const struct bounce_text_rule *r;

	if ((r = text_rule(rules, buf)) == NULL)
		return -1;
	if (j->why != NULL)
		(void)snprintf(j->why, j->wlen, "text \"%s\"", r->text);
	if (j->temp && r->class == BOUNCE_RECIPIENT)
		return BOUNCE_TRANSIENT;
	return (int)r->class;
}

/* specific - a code that says more than its class */
static int
specific(const struct class_code *cc)
{
	return cc->c != 0 && (cc->s != 0 || cc->d != 0);
}

/* expired - X.4.7: the message's time in a queue ran out */
static int
expired(const struct class_code *cc)
{
	return cc->c != 0 && cc->s == 4 && cc->d == 7;
}

/* judge_expired - a message that expired: its last reply, quoted in
 * buf, is history, judged by its words only; else transient */
static enum bounce_class
judge_expired(struct judge *j, const char *buf)
{
	int k;

	j->temp = 1; /* a recipient text says the address was unknown for
			a while, not that it is dead */
	if ((k = by_text(j, bounce_first_rules, buf)) != -1 ||
	    (k = by_text(j, bounce_text_rules, buf)) != -1)
		return (enum bounce_class)k;
	if (j->why != NULL)
		(void)snprintf(j->why, j->wlen, "expired in a queue: no rule");
	return BOUNCE_TRANSIENT;
}

/* bounce_class_judge - the class of a reply, diagnostic or NDR text */
enum bounce_class
bounce_class_judge(
    const char *text, size_t len, const char *status, char *why, size_t wlen)
{
	char buf[CLASS_TEXT_MAX + 1];
	struct judge j;
	int code, k;

	memset(&j, 0, sizeof(j));
	j.why = why, j.wlen = wlen;
	class_copy(buf, sizeof(buf), text, len);
	code = reply_code(buf);
	status_find(buf, strlen(buf), &j.reply, &j.policy);
	if (status == NULL ||
	    status_parse(status, status + strlen(status), &j.status) == 0)
		j.status.c = 0;
	/* A Status says whether the failure is final (a DSN's Action:
	 * failed after the last of many 4xx replies); else the reply. */
	j.temp = j.status.c != 0  ? j.status.c == 4
		 : j.reply.c != 0 ? j.reply.c == 4
				  : code / 100 == 4;
	if (expired(&j.status) || expired(&j.reply))
		return judge_expired(&j, buf);
	if ((k = by_code(&j, bounce_first_codes, &j.reply, "reply")) != -1 ||
	    (k = by_code(&j, bounce_first_codes, &j.status, "Status")) != -1 ||
	    (k = by_text(&j, bounce_first_rules, buf)) != -1 ||
	    (k = by_code(&j, bounce_code_rules, &j.policy, "reply")) != -1 ||
	    (j.reply.d != 0 &&
		(k = by_code(&j, bounce_code_rules, &j.reply, "reply")) != -1))
		return (enum bounce_class)k;
	if (specific(&j.status) && (k = by_code(&j, bounce_code_rules,
					&j.status, "Status")) == BOUNCE_POLICY)
		return BOUNCE_POLICY;
	if ((k = by_text(&j, bounce_text_rules, buf)) != -1 ||
	    (specific(&j.reply) && (k = by_code(&j, bounce_code_rules, &j.reply,
					"reply")) != -1) ||
	    (specific(&j.status) && (k = by_code(&j, bounce_code_rules,
					 &j.status, "Status")) != -1))
		return (enum bounce_class)k;
	if (why != NULL)
		(void)snprintf(why, wlen, "no rule: a %s failure",
		    j.temp ? "temporary" : "permanent");
	return j.temp ? BOUNCE_TRANSIENT : BOUNCE_UNKNOWN;
}

/* bounce_class_reply - the class alone */
enum bounce_class
bounce_class_reply(const char *text, size_t len, const char *status)
{
	return bounce_class_judge(text, len, status, NULL, 0);
}

/* bounce_class_name - the class's name, as logged and counted */
const char *
bounce_class_name(enum bounce_class c)
{
	static const char *const names[BOUNCE_CLASSES] = {
	    "unknown", "transient", "policy", "mailbox", "recipient"};

	return (unsigned)c < BOUNCE_CLASSES ? names[c] : "unknown";
}
