/*
 * arf_parse.h - a complaint about a list's mail (arf_parse.c): an RFC
 * 5965 feedback report, and the subscriber who complained.
 */
#ifndef MJQ_ARF_PARSE_H
#define MJQ_ARF_PARSE_H

#include <stddef.h>

#include "names.h"

struct arf_found {
	int is_arf;    /* multipart/report; report-type=feedback-report */
	int abuse;     /* its Feedback-Type is abuse */
	char type[32]; /* the Feedback-Type, or "" */
	char addr[NAME_ADDR_MAX + 1]; /* the complaining address, or "" */
};

/* arf_parse - what a message to list's owner at domain (text, len)
 * reports; af->addr is "" when a report names nobody (malformed, or
 * redacted beyond use) */
void arf_parse(const char *domain, const char *list, const char *text,
    size_t len, struct arf_found *af);

#endif
