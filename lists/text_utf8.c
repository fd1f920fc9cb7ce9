/*
 * text_utf8.c - text in a declared charset made UTF-8, for readers of a
 * text/plain; charset=utf-8 message (the RFC 1153 digest).
 *
 * No charset, us-ascii and utf-8 are read as UTF-8 (ASCII is a subset,
 * and unlabelled 8-bit text is most often UTF-8); a charset iconv does
 * not know is read as UTF-8 too, and said so.  A conversion never
 * fails on its input: a byte that is not valid in the charset (or a
 * sequence cut off at the end) becomes U+FFFD, counted, and the rest is
 * converted on, so the reader sees where text was lost and how much.
 */
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text_utf8.h"
#include "utf8.h"

static const char text_utf8_bad[] = "\xef\xbf\xbd"; /* U+FFFD */

/* The text being converted. */
struct text_utf8_buf {
	char *out;
	size_t len, cap;
};

/* text_utf8_is - the charset names UTF-8 or a subset of it */
static int
text_utf8_is(const char *charset)
{
	return charset[0] == '\0' || strcasecmp(charset, "utf-8") == 0 ||
	       strcasecmp(charset, "utf8") == 0 ||
	       strcasecmp(charset, "us-ascii") == 0 ||
	       strcasecmp(charset, "ascii") == 0;
}

/* text_utf8_grow - room for at least 16 more bytes (and a NUL) in b */
static int
text_utf8_grow(struct text_utf8_buf *b)
{
	size_t cap = b->cap * 2 + 64;
	char *n;

	if (cap < b->cap || (n = realloc(b->out, cap)) == NULL)
		return -1;
	b->out = n;
	b->cap = cap;
	return 0;
}

/* text_utf8_run - in through cd into b, each invalid byte replaced */
static int
text_utf8_run(iconv_t cd, const char *in, size_t len, struct text_utf8_buf *b,
    size_t *replaced)
{
	char *ip = (char *)in, *op;
	size_t il = len, ol;
	int flush = 0;

	for (;;) {
		if (b->cap - b->len < 17 && text_utf8_grow(b) == -1)
			return -1;
		op = b->out + b->len;
		ol = b->cap - b->len - 1; /* the NUL's place kept */
		if ((flush ? iconv(cd, NULL, NULL, &op, &ol)
			   : iconv(cd, &ip, &il, &op, &ol)) != (size_t)-1) {
			b->len = (size_t)(op - b->out);
			if (flush)
				return 0;
			flush = 1; /* then the shift state's end */
			continue;
		}
		b->len = (size_t)(op - b->out);
		if (errno == E2BIG) {
			if (text_utf8_grow(b) == -1)
				return -1;
			continue;
		}
		if (flush || (errno != EILSEQ && errno != EINVAL))
			return -1;
		/* not valid here, or cut off at the end: one byte is lost */
		if (b->cap - b->len < 17 && text_utf8_grow(b) == -1)
			return -1;
		memcpy(b->out + b->len, text_utf8_bad, 3);
		b->len += 3;
		ip++, il--;
		(*replaced)++;
		(void)iconv(cd, NULL, NULL, NULL, NULL); /* a fresh state */
	}
}

/* text_utf8_valid - in (len bytes) is well-formed UTF-8 (RFC 3629, as
 * utf8_next reads it), so that it can be taken as it is */
static int
text_utf8_valid(const char *in, size_t len)
{
	const unsigned char *p = (const unsigned char *)in, *end = p + len, *s;
	unsigned char tail[5];
	size_t n;
	int bad;

	while (p < end) {
		if (*p < 0x80) {
			p++;
			continue;
		}
		/* utf8_next reads up to 4 bytes, up to a NUL */
		if ((n = (size_t)(end - p)) < 4) {
			memset(tail, 0, sizeof(tail));
			memcpy(tail, p, n);
			s = tail;
			(void)utf8_next(&s, &bad);
			if (bad || (size_t)(s - tail) > n)
				return 0;
			p += s - tail;
			continue;
		}
		(void)utf8_next(&p, &bad);
		if (bad)
			return 0;
	}
	return 1;
}

/* text_utf8 - in (len bytes, in charset, "" for none) as UTF-8 in *out
 * (malloc'd, NUL-terminated); what was met in *note; 0, or -1 out of
 * memory */
int
text_utf8(const char *charset, const char *in, size_t len, char **out,
    size_t *outlen, struct text_utf8_note *note)
{
	struct text_utf8_buf b = {NULL, 0, 0};
	iconv_t cd;
	int r;

	memset(note, 0, sizeof(*note));
	*out = NULL;
	*outlen = 0;
	/* UTF-8 already (most mail): copied, iconv would change nothing */
	if (text_utf8_is(charset) && text_utf8_valid(in, len)) {
		if ((*out = malloc(len + 1)) == NULL)
			return -1;
		memcpy(*out, in, len);
		(*out)[len] = '\0';
		*outlen = len;
		return 0;
	}
	if ((cd = iconv_open("UTF-8",
		 text_utf8_is(charset) ? "UTF-8" : charset)) == (iconv_t)-1) {
		if ((cd = iconv_open("UTF-8", "UTF-8")) == (iconv_t)-1)
			return -1;
		note->unknown = 1;
	}
	if ((r = text_utf8_run(cd, in, len, &b, &note->replaced)) == 0 &&
	    b.out == NULL && text_utf8_grow(&b) == -1)
		r = -1;
	(void)iconv_close(cd);
	if (r == -1) {
		free(b.out);
		return -1;
	}
	b.out[b.len] = '\0';
	*out = b.out;
	*outlen = b.len;
	return 0;
}
