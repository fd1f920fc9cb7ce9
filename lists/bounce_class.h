/*
 * bounce_class.h - what a failed delivery says about its recipient
 * (bounce_class.c): one of a small set of classes, judged from the
 * RFC 3463 enhanced status code first, then the reply text.
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

/* bounce_class - the class of a failure: code the SMTP reply code (0 when
 * none), status its enhanced status code ("5.1.1", NULL or "" when none),
 * text the reply text (NULL when none) */
enum bounce_class bounce_class(int code, const char *status, const char *text);

/* bounce_class_reply - the class of a reply as text, an SMTP reply
 * ("550-5.1.1 ...", lines joined), a DSN's Diagnostic-Code ("smtp; 550
 * ...") or an NDR's prose ("... (#5.1.1)"): its code and enhanced status
 * code wherever they are; status, when not NULL, is used instead of the
 * text's (a DSN's Status field) */
enum bounce_class bounce_class_reply(
    const char *text, size_t len, const char *status);

/* bounce_class_name - "recipient", "mailbox", "policy", "transient" or
 * "unknown" */
const char *bounce_class_name(enum bounce_class c);

#endif
