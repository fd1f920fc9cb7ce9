/*
 * smtp_reply.h - incremental parser of SMTP server replies.
 *
 * Pure code: bytes in, complete replies out, no I/O, so it can be fuzzed.
 * A hostile server cannot make it allocate or overrun: lines longer than
 * SMTP_REPLY_LINE_MAX are a protocol error, text beyond
 * SMTP_REPLY_TEXT_MAX is dropped.
 */
#ifndef MJQ_SMTP_REPLY_H
#define MJQ_SMTP_REPLY_H

#include <stddef.h>

#define SMTP_REPLY_LINE_MAX 2048 /* RFC 5321 says 512; be lenient */
#define SMTP_REPLY_TEXT_MAX 4096

/* One complete (possibly multi-line) reply. */
struct smtp_reply {
	int code;			/* 200..599 */
	char dsn[16];			/* "X.Y.Z", or "X.0.0" when absent */
	char text[SMTP_REPLY_TEXT_MAX]; /* the lines without code and
					   status code, joined by '\n' */
	size_t textlen;
	int nlines;
};

enum smtp_reply_status { SMTP_REPLY_MORE, SMTP_REPLY_DONE, SMTP_REPLY_ERROR };

struct smtp_reply_parser {
	char line[SMTP_REPLY_LINE_MAX];
	size_t linelen;
	int done;		 /* reply complete; the next feed starts anew */
	const char *error;	 /* why, after SMTP_REPLY_ERROR */
	struct smtp_reply reply; /* complete after SMTP_REPLY_DONE */
};

void smtp_reply_init(struct smtp_reply_parser *);
enum smtp_reply_status smtp_reply_feed(
    struct smtp_reply_parser *, const char *, size_t, size_t *);
size_t smtp_reply_format(const struct smtp_reply *, char *, size_t);

#endif
