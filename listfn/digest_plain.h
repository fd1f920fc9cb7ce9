/*
 * digest_plain.h - a post's entry in an RFC 1153 digest
 * (digest_plain.c): its header fields and text in UTF-8, its
 * attachments named.
 */
#ifndef MJQ_DIGEST_PLAIN_H
#define MJQ_DIGEST_PLAIN_H

#include <stddef.h>
#include <stdio.h>

void digest_plain_body(FILE *fp, const char *text, size_t len);
void digest_plain_field(FILE *fp, const char *p, size_t n);

#endif
