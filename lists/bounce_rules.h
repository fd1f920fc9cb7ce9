/*
 * bounce_rules.h - the bounce classifier's rules as data
 * (bounce_rules.c), each with the reply that motivated it; the engine
 * that applies them is bounce_class.c.
 */
#ifndef MJQ_BOUNCE_RULES_H
#define MJQ_BOUNCE_RULES_H

#include "bounce_class.h"

/* An enhanced status code (RFC 3463) that decides by itself: subject and
 * detail (-1 any detail); its class when permanent and when temporary. */
struct bounce_code_rule {
	int subject, detail;
	enum bounce_class perm, temp;
	const char *example;
};

/* A reply text that decides: a case-insensitive substring; "*" in it
 * stands for any run of characters within the reply. */
struct bounce_text_rule {
	const char *text;
	enum bounce_class class;
	const char *example;
};

/* The codes that decide first: about the sender, never the recipient
 * (5.1.7, 5.1.8). */
extern const struct bounce_code_rule bounce_first_codes[];
/* The codes that decide by themselves. */
extern const struct bounce_code_rule bounce_code_rules[];
/* Texts that decide before any code: the receiver named a policy. */
extern const struct bounce_text_rule bounce_first_rules[];
/* Texts that decide when the reply holds no specific code. */
extern const struct bounce_text_rule bounce_text_rules[];

#endif
