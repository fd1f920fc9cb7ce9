/*
 * arf_parse.h - a complaint about a list's mail (arf_parse.c): an RFC
 * 5965 feedback report, and the subscriber who complained.
 */
#ifndef MJQ_ARF_PARSE_H
#define MJQ_ARF_PARSE_H

#include <stddef.h>
#include <time.h>

#include "copy_rcpt.h"
#include "names.h"

struct arf_found {
	int is_arf;    /* multipart/report; report-type=feedback-report */
	int abuse;     /* its Feedback-Type is abuse */
	char type[32]; /* the Feedback-Type, or "" */
	char addr[NAME_ADDR_MAX + 1]; /* the complaining address, or "" */
	const char *proof;	      /* what proved it, in words */
};

/* arf_parse - what a message to list's owner at domain (text, len)
 * reports; af->addr is "" when a report proves nobody (malformed,
 * redacted beyond use, or naming its recipient only where the poster
 * wrote); us is the one-click secret (NULL: none) */
void arf_parse(const char *domain, const char *list,
    const struct unsub_secret *us, time_t now, const char *text, size_t len,
    struct arf_found *af);

#endif
