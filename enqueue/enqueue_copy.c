/*
 * enqueue_copy.c - copy the message from the MTA into the tmp file.
 *
 * The text is stored as received, except: a leading mbox "From " line is
 * dropped (its sender is used when no other is known), and a
 * "Return-Path: <sender>" header is put on top when the envelope sender
 * is known and the message has none, as a final delivery agent does (RFC
 * 5321 4.4).  Only the header section is held in memory, because the
 * decision about Return-Path needs all of it; the body streams through.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "enqueue.h"
#include "io.h"

#define COPY_CHUNK 65536

struct copy_state {
	char *hdr; /* header section read so far */
	size_t len, cap;
	size_t line;	/* start of the first unexamined line */
	int first_done; /* the From_ question is settled */
	int has_return_path;
	int crlf; /* the first line ends in CRLF */
	long long stored;
};

/* copy_from_line - take the sender of a dropped "From sender date" line */
static void
copy_from_line(struct enqueue_copy *c, const char *line, size_t len)
{
	char sender[ENQUEUE_SENDER_MAX + 1];
	size_t n;

	line += 5;
	len -= 5;
	n = 0;
	while (n < len && line[n] != ' ' && line[n] != '\t' &&
	       line[n] != '\r' && line[n] != '\n')
		n++;
	if (n == 0 || n > ENQUEUE_SENDER_MAX || c->have_sender)
		return;
	memcpy(sender, line, n);
	sender[n] = '\0';
	if (strcmp(sender, "MAILER-DAEMON") == 0)
		sender[0] = '\0';
	else if (enqueue_sender_check(sender) == -1)
		return;
	if (strlcpy(c->sender, sender, sizeof(c->sender)) >= sizeof(c->sender))
		return;
	c->have_sender = 1;
}

/* copy_scan - examine complete header lines; 1 once the section ended */
static int
copy_scan(struct enqueue_copy *c, struct copy_state *st, int eof)
{
	char *nl;
	size_t start, len;

	for (;;) {
		start = st->line;
		nl = memchr(st->hdr + start, '\n', st->len - start);
		if (nl == NULL)
			return eof;
		len = (size_t)(nl - (st->hdr + start)) + 1;
		st->line = start + len;
		if (!st->first_done) {
			st->first_done = 1;
			st->crlf = len >= 2 && nl[-1] == '\r';
			if (len >= 5 && memcmp(st->hdr, "From ", 5) == 0) {
				copy_from_line(c, st->hdr, len);
				memmove(st->hdr, st->hdr + len, st->len - len);
				st->len -= len;
				st->line = 0;
				st->first_done = 2;
				continue;
			}
		} else if (st->first_done == 2) {
			st->first_done = 1;
			st->crlf = len >= 2 && nl[-1] == '\r';
		}
		if (len == 1 || (len == 2 && st->hdr[start] == '\r'))
			return 1; /* the empty line that ends the headers */
		if (len >= 12 &&
		    strncasecmp(st->hdr + start, "Return-Path:", 12) == 0)
			st->has_return_path = 1;
	}
}

/* copy_read - read a chunk into the header buffer; bytes read or -1 */
static ssize_t
copy_read(struct copy_state *st, int in)
{
	ssize_t n;
	char *p;

	if (st->cap - st->len < COPY_CHUNK) {
		if ((p = realloc(st->hdr, st->cap + COPY_CHUNK)) == NULL)
			return -1;
		st->hdr = p;
		st->cap += COPY_CHUNK;
	}
	while ((n = read(in, st->hdr + st->len, COPY_CHUNK)) == -1 &&
	       errno == EINTR)
		;
	if (n > 0)
		st->len += (size_t)n;
	return n;
}

/* copy_too_big - the size check, with the one-line diagnostic */
static int
copy_too_big(struct enqueue_copy *c, long long stored)
{
	if (stored <= c->max_size)
		return 0;
	fprintf(stderr,
	    "mj_enqueue: message larger than max_message_size "
	    "(%lld bytes)\n",
	    c->max_size);
	return 1;
}

/* copy_body - stream the rest of the input after the headers */
static int
copy_body(struct enqueue_copy *c, struct copy_state *st, int in, int out)
{
	ssize_t n;

	for (;;) {
		st->len = 0;
		if ((n = copy_read(st, in)) == -1) {
			fprintf(stderr,
			    "mj_enqueue: cannot read the message: "
			    "%s\n",
			    strerror(errno));
			return EX_TEMPFAIL;
		}
		if (n == 0)
			return 0;
		st->stored += n;
		if (copy_too_big(c, st->stored))
			return EX_DATAERR;
		if (io_write_all(out, st->hdr, (size_t)n) == -1)
			return -1;
	}
}

/* enqueue_copy - 0, an exit code (diagnostic printed), or -1 for a
 * write error on out (errno set; the caller names the file) */
int
enqueue_copy(struct enqueue_copy *c, int in, int out)
{
	struct copy_state st;
	char rp[ENQUEUE_SENDER_MAX + 32];
	ssize_t n;
	int done = 0, r, rplen;

	memset(&st, 0, sizeof(st));
	while (!done) {
		if ((n = copy_read(&st, in)) == -1) {
			r = EX_TEMPFAIL;
			fprintf(stderr,
			    "mj_enqueue: cannot read the message: "
			    "%s\n",
			    strerror(errno));
			free(st.hdr);
			return r;
		}
		done = copy_scan(c, &st, n == 0);
		if (copy_too_big(c, (long long)st.len)) {
			free(st.hdr);
			return EX_DATAERR;
		}
	}
	if (st.len == 0) {
		fprintf(stderr, "mj_enqueue: empty message\n");
		free(st.hdr);
		return EX_DATAERR;
	}
	r = 0;
	if (c->have_sender && !st.has_return_path) {
		rplen = snprintf(rp, sizeof(rp), "Return-Path: <%s>%s",
		    c->sender, st.crlf ? "\r\n" : "\n");
		r = io_write_all(out, rp, (size_t)rplen);
	}
	st.stored = (long long)st.len;
	if (r == 0)
		r = io_write_all(out, st.hdr, st.len);
	if (r == 0)
		r = copy_body(c, &st, in, out);
	free(st.hdr);
	return r;
}
