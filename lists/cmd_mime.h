/*
 * cmd_mime.h - just enough RFC 5322 and MIME to read a request: header
 * values, the first text/plain part, base64 and quoted-printable, and
 * the address in a From: or To: value.
 *
 * Pure code, bounded: no I/O, nesting at most CMD_MIME_DEPTH deep, every
 * output truncated to its buffer.
 */
#ifndef MJQ_CMD_MIME_H
#define MJQ_CMD_MIME_H

#include <stddef.h>

#define CMD_MIME_DEPTH 4

int cmd_mime_header(
    const char *text, size_t len, const char *name, char *out, size_t outlen);
int cmd_mime_param(
    const char *value, const char *param, char *out, size_t outlen);
int cmd_mime_plain(
    const char *text, size_t len, size_t max, char **out, size_t *outlen);
int cmd_mime_addr(const char *value, char *out, size_t outlen);
void cmd_mime_words(char *s);
int cmd_mime_find(const char *text, size_t len, const char *type,
    const char **part, size_t *partlen);

#endif
