/*
 * smtp_data.c - the message text on the wire.
 *
 * The spool keeps messages as received, with LF (or CRLF) line ends and
 * possibly no final newline.  SMTP wants CRLF everywhere, a dot doubled
 * at the start of a line, and CRLF.CRLF at the end (RFC 5321 4.5.2).
 * A bare CR or a bare LF each becomes CRLF, so no receiver sees a line
 * end it might read differently from us (SMTP smuggling).
 *
 * The conversion is a pure function over blocks with a two-flag state,
 * so it is testable byte for byte and never holds the whole message.
 * A text that goes out many times (one copy per recipient) may be kept
 * converted in memory instead (smtp_data_open's keep), so each copy
 * costs a copy of bytes, not a read and a conversion.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smtp_data.h"

#define SMTP_DATA_BLOCK 32768
/* The largest text kept converted in memory: a list post, not a
 * mailbox; up to about twice that per delivery thread. */
#define SMTP_DATA_KEEP_MAX (256 * 1024)

/* smtp_data_conv_init - state at the start of a message */
static void
smtp_data_conv_init(struct smtp_data_conv *c)
{
	c->bol = 1;
	c->cr = 0;
}

/* smtp_data_convert - convert one block; out holds 2 * len bytes */
static size_t
smtp_data_convert(
    struct smtp_data_conv *c, const char *in, size_t len, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (in[i] == '\r') {
			out[n++] = '\r';
			out[n++] = '\n';
			c->cr = c->bol = 1;
			continue;
		}
		if (in[i] == '\n') {
			/* The LF of a CRLF pair went out with its CR. */
			if (!c->cr) {
				out[n++] = '\r';
				out[n++] = '\n';
			}
			c->cr = 0;
			c->bol = 1;
			continue;
		}
		if (c->bol && in[i] == '.')
			out[n++] = '.';
		out[n++] = in[i];
		c->cr = c->bol = 0;
	}
	return n;
}

/* smtp_data_finish - the end of the text: CRLF if missing, ".\r\n" */
static size_t
smtp_data_finish(const struct smtp_data_conv *c, char *out)
{
	size_t n = 0;

	if (!c->bol) {
		out[n++] = '\r';
		out[n++] = '\n';
	}
	out[n++] = '.';
	out[n++] = '\r';
	out[n++] = '\n';
	return n;
}

/* smtp_data_open - scan a message once: 8-bit bytes, size on the wire;
 * with keep, the text converted into memory on the way, for the sends
 * to come (it stays on disk when over SMTP_DATA_KEEP_MAX, shorter than
 * size, or when memory is short: that is not an error) */
int
smtp_data_open(struct smtp_data_msg *m, int fd, off_t size, int keep)
{
	char in[SMTP_DATA_BLOCK], out[2 * SMTP_DATA_BLOCK + 5];
	struct smtp_data_conv c;
	off_t off;
	ssize_t n, i;

	m->fd = fd;
	m->size = size;
	m->wire_size = 0;
	m->eightbit = 0;
	m->head = NULL;
	m->headlen = 0;
	m->head_wire = 0;
	/* converted, the text takes twice its bytes at most, and the end 5 */
	m->wire = keep && size <= SMTP_DATA_KEEP_MAX
		      ? malloc(2 * (size_t)size + 5)
		      : NULL;
	smtp_data_conv_init(&c);
	for (off = 0; off < size; off += n) {
		if ((n = pread(fd, in, sizeof(in), off)) == -1) {
			if (errno == EINTR) {
				n = 0;
				continue;
			}
			smtp_data_close(m);
			return -1;
		}
		if (n == 0) {
			/* cut short: sent from the file, which then says so */
			smtp_data_close(m);
			break;
		}
		for (i = 0; i < n && !m->eightbit; i++)
			if ((unsigned char)in[i] >= 0x80)
				m->eightbit = 1;
		m->wire_size += smtp_data_convert(
		    &c, in, n, m->wire != NULL ? m->wire + m->wire_size : out);
	}
	/* Without the final dot line, with the final CRLF if we add one
	 * (a kept text gets its dot line at each send). */
	m->wire_size += smtp_data_finish(&c,
			    m->wire != NULL ? m->wire + m->wire_size : out) -
			3;
	return 0;
}

/* smtp_data_close - let the kept text go */
void
smtp_data_close(struct smtp_data_msg *m)
{
	free(m->wire);
	m->wire = NULL;
}

/* smtp_data_head - header fields (whole lines, ASCII) sent before the
 * text in the next transactions, in place of the previous ones; with
 * no text after them (size 0: smtp_data_whole) the whole copy, whose
 * last line may lack its end: the CRLF the send adds counts too */
void
smtp_data_head(struct smtp_data_msg *m, const char *head, size_t len)
{
	char out[2 * SMTP_DATA_BLOCK + 5];
	struct smtp_data_conv c;
	size_t off, n;

	m->wire_size -= m->head_wire;
	m->head = head;
	m->headlen = len;
	m->head_wire = 0;
	smtp_data_conv_init(&c);
	for (off = 0; off < len; off += n) {
		n = len - off < SMTP_DATA_BLOCK ? len - off : SMTP_DATA_BLOCK;
		m->head_wire += smtp_data_convert(&c, head + off, n, out);
	}
	if (m->size == 0)
		m->head_wire += smtp_data_finish(&c, out) - 3;
	m->wire_size += m->head_wire;
}

/* smtp_data_whole - a copy made whole in memory (text, len: its header
 * and body) sent in place of the shared text, which is not sent after
 * it; the shared text's kept bytes, not the copy's, are left alone */
void
smtp_data_whole(struct smtp_data_msg *m, const char *text, size_t len)
{
	m->size = 0;
	m->wire = NULL;
	m->wire_size = m->head_wire = 0;
	smtp_data_head(m, text, len);
}

/* smtp_data_send_head - the head, converted into out (2 *
 * SMTP_DATA_BLOCK + 5 bytes) and sent but for its last part, at most
 * SMTP_DATA_BLOCK bytes, left in out for *len, to go with the text's
 * first block; the converter goes on from where it leaves off, at the
 * start of a line */
static int
smtp_data_send_head(struct smtp_session *s, const struct smtp_data_msg *m,
    struct smtp_data_conv *c, char *out, size_t *len)
{
	size_t off, n;

	for (off = 0; off < m->headlen; off += n) {
		if (*len > 0 &&
		    smtp_session_send(s, out, *len, s->to.data_ms) == -1)
			return -1;
		n = m->headlen - off < SMTP_DATA_BLOCK / 2
			? m->headlen - off
			: SMTP_DATA_BLOCK / 2;
		*len = smtp_data_convert(c, m->head + off, n, out);
	}
	return 0;
}

/* smtp_data_last - the write with the final dot in out, and the tail
 * after it in the same write when there is room (else in its own) */
static int
smtp_data_last(struct smtp_session *s, char *out, size_t len, size_t room,
    const char *tail, size_t taillen)
{
	if (taillen > 0 && taillen <= room - len) {
		memcpy(out + len, tail, taillen);
		len += taillen;
		taillen = 0;
	}
	if (smtp_session_send(s, out, len, s->to.data_ms) == -1 ||
	    (taillen > 0 &&
		smtp_session_send(s, tail, taillen, s->to.command_ms) == -1))
		return -1;
	return 0;
}

/* smtp_data_send_kept - the kept text after the head's last part (len
 * bytes of out, room bytes in all), the final dot and the tail */
static int
smtp_data_send_kept(struct smtp_session *s, const struct smtp_data_msg *m,
    char *out, size_t len, size_t room, const char *tail, size_t taillen)
{
	size_t off, n, wlen = (size_t)(m->wire_size - m->head_wire);

	for (off = 0;; off += n) {
		n = wlen - off < room - 3 - len ? wlen - off : room - 3 - len;
		memcpy(out + len, m->wire + off, n);
		len += n;
		if (off + n == wlen)
			break;
		if (smtp_session_send(s, out, len, s->to.data_ms) == -1)
			return -1;
		len = 0;
	}
	memcpy(out + len, ".\r\n", 3);
	return smtp_data_last(s, out, len + 3, room, tail, taillen);
}

/* smtp_data_send - send the converted text and the final dot, then the
 * tail (the next transaction's envelope, or none); the head goes out in
 * the text's first write (one write per short copy, tail included) */
int
smtp_data_send(struct smtp_session *s, const struct smtp_data_msg *m,
    const char *tail, size_t taillen)
{
	char in[SMTP_DATA_BLOCK], out[2 * SMTP_DATA_BLOCK + 5];
	struct smtp_data_conv c;
	size_t len = 0, want;
	off_t off;
	ssize_t n;

	smtp_data_conv_init(&c);
	if (m->head != NULL && smtp_data_send_head(s, m, &c, out, &len) == -1)
		return -1;
	if (m->wire != NULL)
		return smtp_data_send_kept(
		    s, m, out, len, sizeof(out), tail, taillen);
	for (off = 0; off < m->size; off += n) {
		/* what fits beside the head's part (half a block or more) */
		want = (sizeof(out) - 5 - len) / 2;
		if (m->size - off < (off_t)want)
			want = (size_t)(m->size - off);
		if ((n = pread(m->fd, in, want, off)) == -1 && errno == EINTR) {
			n = 0;
			continue;
		}
		/* A message that cannot be read must not end with a dot:
		 * the caller drops the connection instead. */
		if (n <= 0)
			return -2;
		len += smtp_data_convert(&c, in, n, out + len);
		if (off + n >= m->size) {
			len += smtp_data_finish(&c, out + len);
			return smtp_data_last(
			    s, out, len, sizeof(out), tail, taillen);
		}
		if (smtp_session_send(s, out, len, s->to.data_ms) == -1)
			return -1;
		len = 0;
	}
	len += smtp_data_finish(&c, out + len);
	return smtp_data_last(s, out, len, sizeof(out), tail, taillen);
}
