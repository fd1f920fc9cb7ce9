/*
 * bounce_class.h - what a failed delivery says about its recipient
 * (bounce_class.c): one of a small set of classes, judged from all the
 * evidence, the most specific first, by the rules of bounce_rules.c.
 */
#ifndef MJQ_BOUNCE_CLASS_H
#define MJQ_BOUNCE_CLASS_H

#include <stddef.h>

/* In the order of strength: a day's strongest failure is the one kept. */
enum bounce_class {
	BOUNCE_UNKNOWN,	  /* a failure that says nothing about its cause */
	BOUNCE_TRANSIENT, /* temporary, not the recipient's mailbox */
	BOUNCE_POLICY,	  /* the receiver refuses the sender: blocklists,
			     spam, DMARC, rate limits; never counted */
	BOUNCE_MAILBOX,	  /* the mailbox exists but is full or too small */
	BOUNCE_RECIPIENT, /* no such address, domain or account */
};
#define BOUNCE_CLASSES 5

#define BOUNCE_WHY_MAX 96

/* bounce_class_judge - the class of a reply as text, an SMTP reply
 * ("550-5.1.1 ...", lines joined), a DSN's Diagnostic-Code ("smtp; 550
 * ...") or an NDR's prose ("... (#5.1.1)"), with status a DSN's Status
 * field (NULL or "" when none); when why is not NULL, the rule that
 * decided, as a phrase ("text \"user unknown\"", "code 5.1.1 in the
 * reply") */
enum bounce_class bounce_class_judge(
    const char *text, size_t len, const char *status, char *why, size_t wlen);

/* bounce_class_reply - bounce_class_judge without the why */
enum bounce_class bounce_class_reply(
    const char *text, size_t len, const char *status);

/* bounce_class_name - "recipient", "mailbox", "policy", "transient" or
 * "unknown" */
const char *bounce_class_name(enum bounce_class c);

#endif
