/*
 * bounce_family.h - a family of non-standard reports, as data: how to
 * tell a report of the family, where its list of failed addresses
 * starts, and the forms of the lines that name one.  One file per
 * family (bounce_fam_*.c), each with the samples it was written
 * against; bounce_read_prose.c applies them.
 *
 * Strings are case-insensitive.  detect: substrings of the report text,
 * its Subject or its From, any one tells the family (NULL: every
 * report).  start: the failed addresses follow the first line holding
 * one of these (NULL, or none found: from the top).  lines: POSIX
 * extended regular expressions, matched against one line at a time,
 * whose last group holding an '@' (FAM_ADDR) is the address; what the report
 * says of an address is its line and the lines after it, up to the next address
 * (only its line when line_only: a transcript, one line per address).
 */
#ifndef MJQ_BOUNCE_FAMILY_H
#define MJQ_BOUNCE_FAMILY_H

#define BOUNCE_FAMILY_LINES 8

struct bounce_family {
	const char *name;
	const char *detect[8];
	const char *start[8];
	const char *lines[BOUNCE_FAMILY_LINES];
	int line_only;
};

/* The address part of a line form: a mailbox without blanks, brackets
 * or quotes. */
#define FAM_ADDR                                                               \
	"([^][<>()\"'[:space:],;:]+@[^][<>()\"'[:space:],;:]+[[:alnum:]])"

extern const struct bounce_family bounce_fam_qmail, bounce_fam_postfix,
    bounce_fam_sendmail, bounce_fam_v5sendmail, bounce_fam_exim,
    bounce_fam_exchange, bounce_fam_domino, bounce_fam_japan, bounce_fam_fml,
    bounce_fam_other;

#endif
