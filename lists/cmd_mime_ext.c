/*
 * cmd_mime_ext.c - a MIME parameter's value (an attachment's name) as
 * UTF-8 text, in whichever of its forms the sender wrote, in RFC 2231
 * section 4's order of preference:
 *
 * 1. extended: name*=charset'language'caf%C3%A9 (bytes in the charset,
 *    those outside a token percent-encoded);
 * 2. continued: name*0, name*1, ... up to CMD_MIME_EXT_PARTS, each
 *    plain (a token or quoted) or extended (name*0*=charset''..., then
 *    name*1*=...; the charset given once, in the first), joined in
 *    order and then converted, so that a character split between two
 *    parts comes out whole;
 * 3. plain: name=value, with the RFC 2047 encoded-words many mailers
 *    put in it (filename="=?utf-8?q?...?=") decoded.
 *
 * The conversion is text_utf8's: a byte not valid in the charset becomes
 * U+FFFD, and an unknown charset is read as UTF-8.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_mime.h"
#include "cmd_mime_ext.h"
#include "cmd_mime_words.h"
#include "text_utf8.h"

#define CMD_MIME_EXT_PARTS 64 /* continuations read */
#define CMD_MIME_EXT_MAX 4096 /* bytes of a value kept */

/* The bytes of a value, as its parts are joined. */
struct cmd_mime_ext_val {
	char charset[64];
	char bytes[CMD_MIME_EXT_MAX];
	size_t len;
};

/* cmd_mime_ext_hex - the value of a hex digit, -1 for others */
static int
cmd_mime_ext_hex(unsigned char c)
{
	if (isdigit(c))
		return c - '0';
	c = (unsigned char)tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* cmd_mime_ext_append - the text s of one part onto v: percent-decoded
 * when extended, and, when first too, after its charset'language' */
static void
cmd_mime_ext_append(
    struct cmd_mime_ext_val *v, const char *s, int extended, int first)
{
	const char *q1, *q2;
	int h, l;

	if (extended && first && (q1 = strchr(s, '\'')) != NULL &&
	    (q2 = strchr(q1 + 1, '\'')) != NULL) {
		if ((size_t)(q1 - s) < sizeof(v->charset)) {
			memcpy(v->charset, s, (size_t)(q1 - s));
			v->charset[q1 - s] = '\0';
		}
		s = q2 + 1;
	}
	for (; *s != '\0' && v->len < sizeof(v->bytes); s++) {
		if (extended && *s == '%' &&
		    (h = cmd_mime_ext_hex((unsigned char)s[1])) != -1 &&
		    (l = cmd_mime_ext_hex((unsigned char)s[2])) != -1) {
			v->bytes[v->len++] = (char)(h << 4 | l);
			s += 2;
		} else {
			v->bytes[v->len++] = *s;
		}
	}
}

/* cmd_mime_ext_parts - the extended value of param (form 1), or its
 * continuations (form 2), into v; 0 found, -1 none */
static int
cmd_mime_ext_parts(
    const char *value, const char *param, struct cmd_mime_ext_val *v)
{
	char key[128], part[1024];
	int i;

	if (strlen(param) + 16 > sizeof(key))
		return -1;
	snprintf(key, sizeof(key), "%s*", param);
	if (cmd_mime_param(value, key, part, sizeof(part)) == 0) {
		cmd_mime_ext_append(v, part, 1, 1);
		return 0;
	}
	for (i = 0; i < CMD_MIME_EXT_PARTS; i++) {
		snprintf(key, sizeof(key), "%s*%d*", param, i);
		if (cmd_mime_param(value, key, part, sizeof(part)) == 0) {
			cmd_mime_ext_append(v, part, 1, i == 0);
			continue;
		}
		snprintf(key, sizeof(key), "%s*%d", param, i);
		if (cmd_mime_param(value, key, part, sizeof(part)) == -1)
			break;
		cmd_mime_ext_append(v, part, 0, i == 0);
	}
	return i > 0 ? 0 : -1;
}

/* cmd_mime_ext_param - the parameter param of the structured value
 * (Content-Type, Content-Disposition) as UTF-8 text in out, cut to fit;
 * 0 found, -1 none, -2 out of memory */
int
cmd_mime_ext_param(
    const char *value, const char *param, char *out, size_t outlen)
{
	struct cmd_mime_ext_val *v;
	struct text_utf8_note note;
	char *u;
	size_t ulen;
	int r = 0;

	if ((v = calloc(1, sizeof(*v))) == NULL)
		return -2;
	if (cmd_mime_ext_parts(value, param, v) == -1) {
		free(v);
		if (cmd_mime_param(value, param, out, outlen) == -1)
			return -1;
		return cmd_mime_words(out, outlen) == -1 ? -2 : 0;
	}
	if (text_utf8(v->charset, v->bytes, v->len, &u, &ulen, &note) == -1)
		r = -2;
	else
		cmd_mime_words_fit(out, outlen, u, ulen);
	free(u);
	free(v);
	return r;
}
