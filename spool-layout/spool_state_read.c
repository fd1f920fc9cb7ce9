/*
 * spool_state_read.c - read a state file's lines in order, a buffer at a
 * time.
 *
 * A reader holds one SPOOL_STATE_READ_BUF buffer and nothing else, so a
 * state file of a million recipients is read, checked and delivered in
 * the same memory as one of ten.  Lines are returned NUL-terminated in
 * the buffer with their file offsets; a line longer than the buffer, or
 * a last line without its newline, is damage, not a line.  A status word
 * torn by a power loss is not damage: it is read as deferred
 * (spool-layout/README, "State file").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool_state.h"

/* spool_state_read_start - read fd's lines from offset start */
void
spool_state_read_start(struct spool_state_reader *r, int fd, off_t start)
{
	r->fd = fd;
	r->next = start;
	r->pos = r->len = 0;
	r->index = 0;
	r->eof = 0;
}

/* spool_state_read_fill - more text after what is unread; 0 at the end
 * of the file, -1 on an I/O error */
static ssize_t
spool_state_read_fill(struct spool_state_reader *r)
{
	ssize_t n;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	do
		n = pread(r->fd, r->buf + r->len, sizeof(r->buf) - 1 - r->len,
		    r->next);
	while (n == -1 && errno == EINTR);
	if (n > 0) {
		r->len += (size_t)n;
		r->next += n;
	}
	return n;
}

/* spool_state_read_line - the next line, NUL-terminated, and its file
 * offset; 1, 0 at the end, -1 with errno EINVAL for a truncated or
 * over-long line, or another errno for an I/O error */
int
spool_state_read_line(struct spool_state_reader *r, char **line, off_t *off)
{
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
		if (nl != NULL)
			break;
		if (r->eof) {
			if (r->pos == r->len)
				return 0;
			errno = EINVAL; /* a last line without its newline */
			return -1;
		}
		if (r->pos == 0 && r->len == sizeof(r->buf) - 1) {
			errno = EINVAL; /* longer than any valid line */
			return -1;
		}
		if ((n = spool_state_read_fill(r)) == -1)
			return -1;
		if (n == 0)
			r->eof = 1;
	}
	*nl = '\0';
	*line = r->buf + r->pos;
	*off = r->next - (off_t)(r->len - r->pos);
	r->pos = (size_t)(nl - r->buf) + 1;
	return 1;
}

/* spool_state_torn - 1 when a status field that is no word could be a
 * word torn by a power loss: the first bytes of one padded word and the
 * rest of another, so lower-case letters and spaces only */
static int
spool_state_torn(const char *field)
{
	size_t i;

	for (i = 0; i < SPOOL_STATUS_WIDTH; i++)
		if (field[i] != ' ' && (field[i] < 'a' || field[i] > 'z'))
			return 0;
	return 1;
}

/* spool_state_parse_rcpt - split a recipient line into its status and
 * address; 0, or 1 for a torn status word, read as deferred (not
 * delivered: the recipient is tried again); -1 when it is not a
 * recipient line */
int
spool_state_parse_rcpt(char *line, enum spool_rcpt_status *s, char **addr)
{
	size_t n;
	int i;

	if (strlen(line) < SPOOL_STATUS_WIDTH + 2 ||
	    line[SPOOL_STATUS_WIDTH] != ' ' ||
	    !name_rcpt_ok(line + SPOOL_STATUS_WIDTH + 1))
		return -1;
	*addr = line + SPOOL_STATUS_WIDTH + 1;
	for (i = 0; i < SPOOL_RCPT_NSTATUS; i++) {
		n = strlen(spool_state_word((enum spool_rcpt_status)i));
		if (strncmp(line, spool_state_word((enum spool_rcpt_status)i),
			n) == 0 &&
		    strspn(line + n, " ") == SPOOL_STATUS_WIDTH - n + 1) {
			*s = (enum spool_rcpt_status)i;
			return 0;
		}
	}
	if (!spool_state_torn(line))
		return -1;
	*s = SPOOL_RCPT_DEFERRED;
	return 1;
}

/* spool_state_read_rcpt - the next recipient of a reader started at the
 * state's rcpt_start; 1, 0 after the last, -1 (EINVAL: damaged) */
int
spool_state_read_rcpt(struct spool_state_reader *r, struct spool_rcpt *rc)
{
	char *line, *addr;
	off_t off;
	int k;

	if ((k = spool_state_read_line(r, &line, &off)) != 1)
		return k;
	if ((k = spool_state_parse_rcpt(line, &rc->status, &addr)) == -1) {
		errno = EINVAL;
		return -1;
	}
	rc->torn = k;
	rc->index = r->index++;
	rc->off = off;
	rc->addr = addr;
	return 1;
}

/* spool_state_each - fn(arg, recipient) for every recipient of st whose
 * status is in the mask (SPOOL_RCPT_BIT), in order, through a reader of
 * its own; stops at fn's -1.  Returns how many fn took, or -1 when the
 * file cannot be read (or memory for the reader is short) or fn failed */
int
spool_state_each(struct spool_state *st, unsigned mask,
    int (*fn)(void *arg, const struct spool_rcpt *rc), void *arg)
{
	struct spool_state_reader *r;
	struct spool_rcpt rc;
	int k, n = 0;

	if ((r = malloc(sizeof(*r))) == NULL)
		return -1;
	spool_state_read_start(r, st->fd, st->rcpt_start);
	while ((k = spool_state_read_rcpt(r, &rc)) == 1)
		if (mask & SPOOL_RCPT_BIT(rc.status)) {
			if ((k = fn(arg, &rc)) == -1)
				break;
			n++;
		}
	free(r);
	return k == -1 ? -1 : n;
}
