/*
 * bounce_report.h - the part of a delivery report that is evidence
 * (bounce_report.c): the notification text and the delivery-status
 * fields, never the returned message.
 */
#ifndef MJQ_BOUNCE_REPORT_H
#define MJQ_BOUNCE_REPORT_H

#include <stddef.h>

struct bounce_report {
	char *text; /* the notification's text parts, decoded, each cut at
		       the returned copy's separator, line ends \n */
	size_t len;
	char *dsn; /* the delivery-status parts, decoded, or NULL */
	size_t dlen;
};

/* bounce_report_make - the evidence of the message (msg, len); 0 done,
 * -1 out of memory */
int bounce_report_make(const char *msg, size_t len, struct bounce_report *r);

/* bounce_report_free - what bounce_report_make allocated */
void bounce_report_free(struct bounce_report *r);

/* bounce_report_copy - the length of text up to the line that starts
 * a returned copy (an MTA's separator, an inline message/rfc822 part),
 * or len when there is none */
size_t bounce_report_copy(const char *text, size_t len);

#endif
