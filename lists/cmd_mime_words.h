/*
 * cmd_mime_words.h - the RFC 2047 encoded-words of a header value
 * decoded into UTF-8, each from its own charset (cmd_mime_words.c).
 */
#ifndef MJQ_CMD_MIME_WORDS_H
#define MJQ_CMD_MIME_WORDS_H

#include <stddef.h>

int cmd_mime_words(char *s, size_t size);
void cmd_mime_words_fit(char *out, size_t size, const char *u, size_t n);

#endif
