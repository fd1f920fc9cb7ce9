/*
 * cmd_mime.h - just enough RFC 5322 and MIME to read a request: header
 * parameters, the first text/plain part, each part, base64 and
 * quoted-printable (a field's value and the address in it: header.h).
 *
 * Pure code, bounded: no I/O, nesting at most CMD_MIME_DEPTH deep, every
 * output truncated to its buffer.
 */
#ifndef MJQ_CMD_MIME_H
#define MJQ_CMD_MIME_H

#include <stddef.h>

#define CMD_MIME_DEPTH 4

/* A part of a message, as cmd_mime_each shows it. */
struct cmd_mime_part {
	const char *text, *body; /* the part (its header first), its body */
	size_t len, blen;
	int depth;     /* 0: the message itself */
	char ct[256];  /* its Content-Type value ("text/plain" when none) */
	char type[64]; /* its type/subtype, lower case */
	char cte[64];  /* its Content-Transfer-Encoding, or "" */
};

/* cmd_mime_fn - called on each part: 0 goes on, anything else stops */
typedef int cmd_mime_fn(void *arg, const struct cmd_mime_part *p);

int cmd_mime_param(
    const char *value, const char *param, char *out, size_t outlen);
int cmd_mime_plain(
    const char *text, size_t len, size_t max, char **out, size_t *outlen);
int cmd_mime_decoded(const char *body, size_t blen, const char *cte, size_t max,
    char **out, size_t *outlen);
int cmd_mime_delim(const char *p, const char *end, const char *b, size_t blen);
const char *cmd_mime_part_end(const char *part, const char *delim);
int cmd_mime_each(const char *text, size_t len, cmd_mime_fn *fn, void *arg);
int cmd_mime_find(const char *text, size_t len, const char *type,
    const char **part, size_t *partlen);

#endif
