/*
 * text_file.h - the delivered text of a message (text_file.c).
 */
#ifndef MJQ_TEXT_FILE_H
#define MJQ_TEXT_FILE_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

/* text_file_memfd - the delivered text (a, then b) in an anonymous file */
int text_file_memfd(struct listfn_msg *m, const char *a, size_t alen,
    const char *b, size_t blen);
/* text_file_plain - the delivered text: as stored, minus Return-Path */
int text_file_plain(struct listfn_msg *m, const char *text, size_t len);

#endif
