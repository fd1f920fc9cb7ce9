/*
 * fuzz_smtp_reply - libFuzzer target: the SMTP reply parser.
 *
 * The first byte is the chunk size (as a socket might split the
 * stream), the second the size of the buffer smtp_reply_format writes
 * into; the rest is what a hostile server sends.  Every feed must use
 * no more than it was given and make progress, every complete reply must
 * be well formed, and formatting it must stay inside an exact-size heap
 * buffer, NUL-terminated, whatever the size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smtp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_reply - the invariants of a complete reply */
static void
fuzz_reply(const struct smtp_reply *r, size_t fmtsize)
{
	char *buf;
	size_t n;

	if (r->code < 200 || r->code > 599 || r->nlines < 1 ||
	    r->textlen >= sizeof(r->text) || r->text[r->textlen] != '\0' ||
	    strlen(r->text) != r->textlen ||
	    memchr(r->dsn, '\0', sizeof(r->dsn)) == NULL ||
	    r->dsn[0] != '0' + r->code / 100)
		abort();
	/* An exact-size allocation, so ASan sees a one-byte overrun. */
	if ((buf = malloc(fmtsize)) == NULL)
		return;
	n = smtp_reply_format(r, buf, fmtsize);
	if (fmtsize > 0 && (n >= fmtsize || strlen(buf) != n))
		abort();
	if (fmtsize == 0 && n != 0)
		abort();
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct smtp_reply_parser p;
	const char *in;
	size_t chunk, fmtsize, off = 0, n, used;
	enum smtp_reply_status rs;

	if (size < 2)
		return 0;
	chunk = data[0] == 0 ? 4096 : data[0];
	/* 0 and small sizes are the cases worth trying; 255 is "ample". */
	fmtsize = data[1] == 255 ? SMTP_REPLY_TEXT_MAX + 64 : data[1];
	in = (const char *)data + 2;
	size -= 2;
	smtp_reply_init(&p);
	while (off < size) {
		n = size - off < chunk ? size - off : chunk;
		used = (size_t)-1;
		rs = smtp_reply_feed(&p, in + off, n, &used);
		if (used > n)
			abort();
		off += used;
		if (rs == SMTP_REPLY_ERROR) {
			if (p.error == NULL)
				abort();
			break;
		}
		if (rs == SMTP_REPLY_DONE) {
			if (used == 0)
				abort(); /* no progress: a caller would spin */
			fuzz_reply(&p.reply, fmtsize);
		} else if (used != n)
			abort(); /* MORE must take everything */
		if (p.linelen > sizeof(p.line))
			abort();
	}
	return 0;
}
