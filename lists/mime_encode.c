/*
 * mime_encode.c - a body in a MIME transfer encoding: quoted-printable
 * (RFC 2045 6.7: '=', controls, bytes over 126 and a line's last blank
 * as =XX, lines of at most 76 characters with soft breaks) and base64
 * (6.8: lines of 76 characters).  The decoding side is cmd_mime.c's.
 *
 * A line end of the text (LF or CRLF) is a hard line break written as
 * eol; a lone CR is data (=0D).
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "mime_encode.h"

/* mime_encode_qp_line - one line of text (without its end), encoded */
static void
mime_encode_qp_line(FILE *fp, const unsigned char *p, size_t n, const char *eol)
{
	size_t i, col = 0, w;
	int esc;

	for (i = 0; i < n; i++) {
		esc = p[i] == '=' || p[i] > 126 ||
		      (p[i] < 32 && p[i] != '\t') ||
		      ((p[i] == ' ' || p[i] == '\t') && i + 1 == n);
		w = esc ? 3 : 1;
		/* room for the soft break's '=' on a line of 76 */
		if (col + w > 75) {
			fprintf(fp, "=%s", eol);
			col = 0;
		}
		if (esc)
			fprintf(fp, "=%02X", p[i]);
		else
			fputc(p[i], fp);
		col += w;
	}
}

/* mime_encode_qp - len bytes at in as quoted-printable, eol line ends */
void
mime_encode_qp(FILE *fp, const char *in, size_t len, const char *eol)
{
	const char *p = in, *end = in + len, *nl;
	size_t n;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl != NULL ? nl : end) - p);
		if (nl != NULL && n > 0 && p[n - 1] == '\r')
			n--;
		mime_encode_qp_line(fp, (const unsigned char *)p, n, eol);
		if (nl == NULL)
			break;
		fputs(eol, fp);
		p = nl + 1;
	}
}

/* mime_encode_b64 - len bytes at in as base64, lines of 76, each ended
 * with eol */
void
mime_encode_b64(FILE *fp, const char *in, size_t len, const char *eol)
{
	unsigned char out[80];
	size_t i, n;
	int k;

	for (i = 0; i < len; i += n) {
		n = len - i > 57 ? 57 : len - i;
		k = EVP_EncodeBlock(out, (const unsigned char *)in + i, (int)n);
		fwrite(out, 1, (size_t)k, fp);
		fputs(eol, fp);
	}
}
