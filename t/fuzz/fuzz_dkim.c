/*
 * fuzz_dkim - libFuzzer target: the parsers of hostile message text on
 * the signing and DMARC paths.
 *
 * Any bytes as a message: dkim_canon_fields stays inside the text, the
 * relaxed header and body canonicalizations never grow a field, write
 * only CRLF line ends, no blank before one, no empty line at the end;
 * dmarc_from gives an address the list may write into its own header
 * (no line end, blank, quote or angle bracket) and a NUL-terminated
 * name; dmarc_record_policy takes the bytes as TXT records.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lists.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_FIELDS 64

/* The body's canonical form, as written. */
struct fuzz_out {
	char last[2]; /* the last two bytes written */
	size_t n;
	int empty_line; /* the last line written is empty */
};

/* fuzz_body - dkim_canon_out: check each piece */
static void
fuzz_body(void *arg, const void *p, size_t n)
{
	struct fuzz_out *o = arg;
	const char *c = p;
	size_t i;

	for (i = 0; i < n; i++) {
		if (c[i] == '\n' && o->last[1] != '\r')
			abort(); /* a bare LF */
		if (o->last[1] == '\r' && c[i] != '\n')
			abort(); /* a bare CR */
		if (c[i] == '\r' && (o->last[1] == ' ' || o->last[1] == '\t'))
			abort(); /* a blank at a line's end */
		if (c[i] == '\n')
			o->empty_line = o->n >= 2 && o->last[0] == '\n';
		o->last[0] = o->last[1];
		o->last[1] = c[i];
		o->n++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *body;
	struct dkim_field f[FUZZ_FIELDS];
	struct fuzz_out o = {{0, 0}, 0, 0};
	char addr[256], name[64], *canon, *txt;
	size_t nf, i, n;

	nf = dkim_canon_fields(text, size, f, FUZZ_FIELDS, &body);
	if (body < text || body > text + size)
		abort();
	for (i = 0; i < nf && i < FUZZ_FIELDS; i++) {
		if (f[i].p < text || f[i].p + f[i].len > text + size ||
		    f[i].namelen > f[i].len)
			abort();
		if ((canon = malloc(f[i].len + 1)) == NULL)
			return 0;
		n = dkim_canon_header(f[i].p, f[i].len, canon);
		if (n > f[i].len || memchr(canon, '\r', n) != NULL ||
		    memchr(canon, '\n', n) != NULL ||
		    (n > 0 && (canon[n - 1] == ' ' || canon[n - 1] == '\t')))
			abort();
		free(canon);
	}
	dkim_canon_body(body, (size_t)(text + size - body), fuzz_body, &o);
	if (o.n > 0 && (o.last[0] != '\r' || o.last[1] != '\n' || o.empty_line))
		abort(); /* ends with CRLF, no empty line at the end */
	if (dmarc_from(text, size, addr, sizeof(addr), name, sizeof(name)) ==
	    0) {
		if (memchr(name, '\0', sizeof(name)) == NULL ||
		    strpbrk(addr, "\r\n <>\"") != NULL ||
		    strchr(addr, '@') == NULL)
			abort();
	}
	if ((txt = malloc(size + 1)) == NULL)
		return 0;
	memcpy(txt, data, size);
	txt[size] = '\0';
	(void)dmarc_record_policy(txt, size & 1);
	free(txt);
	return 0;
}
