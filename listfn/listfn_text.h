/*
 * listfn_text.h - the delivered text of a message (listfn_text.c).
 */
#ifndef MJQ_LISTFN_TEXT_H
#define MJQ_LISTFN_TEXT_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

/* listfn_text_memfd - the delivered text (a, then b) in an anonymous file */
int listfn_text_memfd(struct listfn_msg *m, const char *a, size_t alen,
    const char *b, size_t blen);
/* listfn_text_plain - the delivered text: as stored, minus Return-Path */
int listfn_text_plain(struct listfn_msg *m, const char *text, size_t len);

#endif
