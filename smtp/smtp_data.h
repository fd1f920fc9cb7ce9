/*
 * smtp_data.h - the message text on the wire: CRLF line ends, dot-stuffing,
 * the final dot; and the one scan per message that finds its 8-bit bytes
 * and its size on the wire.
 */
#ifndef MJQ_SMTP_DATA_H
#define MJQ_SMTP_DATA_H

#include <sys/types.h>

#include "smtp_session.h"

/* A message as the caller gives it: the complete text behind fd, read
 * with pread from offset 0, so many transactions share one fd; and
 * header fields of one recipient's own sent before it (head). */
struct smtp_data_msg {
	int fd;
	off_t size;	  /* bytes in the file */
	off_t wire_size;  /* bytes on the wire, without the final dot */
	int eightbit;	  /* has bytes >= 0x80: ask for BODY=8BITMIME */
	char *wire;	  /* the text as sent, without the final dot line,
			   * when kept in memory (smtp_data_open), or NULL */
	const char *head; /* sent first, or NULL */
	size_t headlen;
	off_t head_wire; /* its bytes on the wire, within wire_size */
};

/* Converter state between blocks. */
struct smtp_data_conv {
	int bol; /* at the beginning of a line */
	int cr;	 /* the last byte was a CR, already sent as CRLF */
};

int smtp_data_open(struct smtp_data_msg *, int, off_t, int);
void smtp_data_close(struct smtp_data_msg *);
void smtp_data_head(struct smtp_data_msg *, const char *, size_t);
void smtp_data_whole(struct smtp_data_msg *, const char *, size_t);
int smtp_data_send(
    struct smtp_session *, const struct smtp_data_msg *, const char *, size_t);

#endif
