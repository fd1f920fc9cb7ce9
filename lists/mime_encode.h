/*
 * mime_encode.h - a body in a MIME transfer encoding (mime_encode.c):
 * quoted-printable and base64, RFC 2045 6.7 and 6.8.
 */
#ifndef MJQ_MIME_ENCODE_H
#define MJQ_MIME_ENCODE_H

#include <stddef.h>
#include <stdio.h>

void mime_encode_qp(FILE *fp, const char *in, size_t len, const char *eol);
void mime_encode_b64(FILE *fp, const char *in, size_t len, const char *eol);

#endif
