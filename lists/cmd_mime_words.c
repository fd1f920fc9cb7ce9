/*
 * cmd_mime_words.c - the RFC 2047 encoded-words of a header value
 * (=?charset?Q?text?= and =?charset?B?text?=) decoded into UTF-8 text,
 * for a reader of a UTF-8 text (a digest's table of contents and its
 * plain entries) and for the command in a request's Subject.
 *
 * Each word's bytes are read in its own charset (text_utf8.c): a byte
 * not valid in it becomes U+FFFD, and a charset iconv does not know is
 * read as UTF-8 (so its ASCII stays readable), so a value always
 * decodes.  Adjacent words of one charset are converted together: a
 * character that a sender split between two words, as when a long
 * Subject is folded, comes out whole.  Blanks between two words go
 * (RFC 2047 section 6.2); an RFC 2231 language (=?utf-8*en?q?...?=) is
 * dropped.  Text outside the words is read as UTF-8 (RFC 6532), with
 * the same U+FFFD for what is not.  Control characters a word decodes
 * to (C0 and C1) become blanks: a word cannot break a line.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd_mime.h"
#include "cmd_mime_words.h"
#include "text_utf8.h"

#define CMD_MIME_WORD_MAX 1024 /* RFC 2047 says 75; some write longer */

/* An encoded-word, as cmd_mime_words_parse finds it. */
struct cmd_mime_ew {
	char charset[64]; /* its charset, the language cut */
	int enc;	  /* 'q' or 'b' */
	const char *text; /* its encoded text */
	size_t n;
};

/* The bytes waiting to be converted: those of adjacent words of one
 * charset, or text outside the words (word 0, read as UTF-8). */
struct cmd_mime_run {
	char charset[64];
	int word;
	char *bytes;
	size_t len, cap;
};

/* cmd_mime_words_parse - the encoded-word at p into w; its length, or 0
 * when p does not start one (nor one of at most CMD_MIME_WORD_MAX bytes,
 * so that a value full of "=?" is read in linear time) */
static size_t
cmd_mime_words_parse(const char *p, struct cmd_mime_ew *w)
{
	const char *q, *end;
	size_t n;

	if (p[0] != '=' || p[1] != '?')
		return 0;
	n = strnlen(p, CMD_MIME_WORD_MAX);
	if ((q = memchr(p + 2, '?', n - 2)) == NULL || q == p + 2 ||
	    (size_t)(q - p) >= sizeof(w->charset) || q + 3 > p + n ||
	    q[2] != '?')
		return 0;
	w->enc = tolower((unsigned char)q[1]);
	w->text = q + 3;
	if ((w->enc != 'q' && w->enc != 'b') ||
	    (end = memmem(w->text, (size_t)(p + n - w->text), "?=", 2)) ==
		NULL ||
	    memchr(p, ' ', (size_t)(end - p)) != NULL ||
	    memchr(p, '\t', (size_t)(end - p)) != NULL)
		return 0;
	n = strcspn(p + 2, "*?"); /* charset*language */
	memcpy(w->charset, p + 2, n);
	w->charset[n] = '\0';
	w->n = (size_t)(end - w->text);
	return (size_t)(end + 2 - p);
}

/* cmd_mime_words_put - the converted text u written; in a word's text,
 * control characters (C0, DEL and C1) as blanks */
static void
cmd_mime_words_put(FILE *fp, const char *u, size_t n, int word)
{
	const unsigned char *p = (const unsigned char *)u;
	size_t i;

	for (i = 0; i < n; i++) {
		if (word && (p[i] < 0x20 || p[i] == 0x7f)) {
			fputc(' ', fp);
		} else if (word && p[i] == 0xc2 && i + 1 < n &&
			   p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
			fputc(' ', fp);
			i++;
		} else {
			fputc(p[i], fp);
		}
	}
}

/* cmd_mime_words_flush - the run converted to UTF-8 and written */
static int
cmd_mime_words_flush(struct cmd_mime_run *r, FILE *fp)
{
	struct text_utf8_note note;
	char *u;
	size_t ulen;

	if (r->len == 0)
		return 0;
	if (text_utf8(r->word ? r->charset : "", r->bytes, r->len, &u, &ulen,
		&note) == -1)
		return -1;
	cmd_mime_words_put(fp, u, ulen, r->word);
	free(u);
	r->len = 0;
	return 0;
}

/* cmd_mime_words_add - n bytes into the run, after what waits there
 * when it is of another kind or charset has been written */
static int
cmd_mime_words_add(struct cmd_mime_run *r, FILE *fp, int word,
    const char *charset, const char *bytes, size_t n)
{
	size_t cap;
	char *nb;

	if (r->len > 0 && (r->word != word || strcasecmp(r->charset, charset)))
		if (cmd_mime_words_flush(r, fp) == -1)
			return -1;
	r->word = word;
	(void)strlcpy(r->charset, charset, sizeof(r->charset));
	if (r->cap - r->len < n) {
		cap = r->len + n + 64;
		if ((nb = realloc(r->bytes, cap)) == NULL)
			return -1;
		r->bytes = nb;
		r->cap = cap;
	}
	if (n > 0) /* an empty word: r->bytes may be NULL yet */
		memcpy(r->bytes + r->len, bytes, n);
	r->len += n;
	return 0;
}

/* cmd_mime_words_word - the bytes of the word w into the run */
static int
cmd_mime_words_word(
    struct cmd_mime_run *r, FILE *fp, const struct cmd_mime_ew *w)
{
	char *tmp, *dec;
	size_t i, dlen;
	int k;

	if (w->enc == 'b') {
		if (cmd_mime_decoded(
			w->text, w->n, "base64", w->n, &dec, &dlen) == -1)
			return -1;
	} else {
		/* Q: quoted-printable, with _ for a space */
		if ((tmp = malloc(w->n + 1)) == NULL)
			return -1;
		for (i = 0; i < w->n; i++)
			tmp[i] = w->text[i] == '_' ? ' ' : w->text[i];
		k = cmd_mime_decoded(
		    tmp, w->n, "quoted-printable", w->n, &dec, &dlen);
		free(tmp);
		if (k == -1)
			return -1;
	}
	k = cmd_mime_words_add(r, fp, 1, w->charset, dec, dlen);
	free(dec);
	return k;
}

/* cmd_mime_words_scan - the value s decoded into fp */
static int
cmd_mime_words_scan(const char *s, FILE *fp)
{
	struct cmd_mime_run r;
	struct cmd_mime_ew w;
	const char *p = s;
	size_t k, b;
	int ret = 0, after_word = 0;

	memset(&r, 0, sizeof(r));
	while (*p != '\0' && ret == 0) {
		if ((k = cmd_mime_words_parse(p, &w)) > 0) {
			ret = cmd_mime_words_word(&r, fp, &w);
			p += k;
			after_word = 1;
			continue;
		}
		b = strspn(p, " \t");
		if (b > 0 && after_word &&
		    cmd_mime_words_parse(p + b, &w) > 0) {
			p += b; /* blanks between two words go */
			continue;
		}
		k = b > 0 ? b : 1;
		ret = cmd_mime_words_add(&r, fp, 0, "", p, k);
		p += k;
		after_word = 0;
	}
	if (ret == 0)
		ret = cmd_mime_words_flush(&r, fp);
	free(r.bytes);
	return ret;
}

/* cmd_mime_words_fit - the UTF-8 text u (n bytes) into out (size
 * bytes, NUL-terminated), cut at a character's end when it does not fit */
void
cmd_mime_words_fit(char *out, size_t size, const char *u, size_t n)
{
	if (size == 0)
		return;
	if (n >= size) {
		/* the cut falls before the character of a continuation byte */
		n = size - 1;
		while (n > 0 && ((unsigned char)u[n] & 0xc0) == 0x80)
			n--;
	}
	memmove(out, u, n);
	out[n] = '\0';
}

/* cmd_mime_words - the header value s (in a buffer of size bytes)
 * decoded in place into UTF-8, cut at a character's end when it does not
 * fit; 0, or -1 out of memory (s as it was) */
int
cmd_mime_words(char *s, size_t size)
{
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp;
	int r;

	if (size == 0)
		return 0;
	if ((fp = open_memstream(&out, &outlen)) == NULL)
		return -1;
	r = cmd_mime_words_scan(s, fp);
	if (fclose(fp) == EOF || r == -1) {
		free(out);
		return -1;
	}
	cmd_mime_words_fit(s, size, out, outlen);
	free(out);
	return 0;
}
