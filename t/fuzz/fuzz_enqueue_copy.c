/*
 * fuzz_enqueue_copy - libFuzzer target: mj_enqueue's copy of the message.
 *
 * The first byte chooses whether an envelope sender is known and the
 * size limit; the rest is what the MTA pipes in.  The stored text must
 * be the input as received, minus a leading "From " line, with
 * "Return-Path: <sender>" on top only when a sender is known (and then
 * with the first line's ending); nothing else may change, whatever the
 * line endings, NUL bytes or header sizes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../enqueue/enqueue.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_fd - a memfd holding len bytes of text, at offset 0 */
static int
fuzz_fd(const void *text, size_t len)
{
	int fd;

	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) == -1)
		abort();
	if (len > 0 && write(fd, text, len) != (ssize_t)len)
		abort();
	if (lseek(fd, 0, SEEK_SET) == -1)
		abort();
	return fd;
}

/* fuzz_out - the bytes written to fd (malloc'd), their count in *len */
static char *
fuzz_out(int fd, size_t *len)
{
	off_t end;
	char *buf;

	if ((end = lseek(fd, 0, SEEK_END)) == -1 ||
	    (buf = malloc((size_t)end + 1)) == NULL ||
	    pread(fd, buf, (size_t)end, 0) != end)
		abort();
	*len = (size_t)end;
	return buf;
}

/* fuzz_return_path - rp is "Return-Path: <sender>" and a line ending;
 * sender is the one expected, or NULL for any that mj_enqueue accepts */
static void
fuzz_return_path(const char *rp, const char *sender)
{
	const char *gt;
	size_t n;

	if (strncmp(rp, "Return-Path: <", 14) != 0 ||
	    (gt = strchr(rp + 14, '>')) == NULL ||
	    (strcmp(gt, ">\n") != 0 && strcmp(gt, ">\r\n") != 0))
		abort();
	n = (size_t)(gt - (rp + 14));
	if (sender != NULL &&
	    (n != strlen(sender) || memcmp(rp + 14, sender, n) != 0))
		abort();
	for (; n > 0; n--)
		if ((unsigned char)rp[14 + n - 1] <= ' ' ||
		    rp[14 + n - 1] == '<')
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enqueue_copy c;
	const char *text, *rest, *nl;
	char *out, rp[ENQUEUE_SENDER_MAX + 32];
	size_t len, restlen, outlen, rplen;
	int in, fd, r, had_sender;

	if (size < 1)
		return 0;
	memset(&c, 0, sizeof(c));
	c.have_sender = had_sender = data[0] & 1;
	strlcpy(c.sender, "s@example.net", sizeof(c.sender));
	c.max_size = data[0] & 2 ? 64 : 1LL << 40;
	text = (const char *)data + 1;
	len = size - 1;
	/* A complete first line "From ..." is dropped. */
	rest = text;
	if (len >= 5 && memcmp(text, "From ", 5) == 0 &&
	    (nl = memchr(text, '\n', len)) != NULL)
		rest = nl + 1;
	restlen = len - (size_t)(rest - text);
	in = fuzz_fd(text, len);
	fd = fuzz_fd("", 0);
	r = enqueue_copy(&c, in, fd);
	out = fuzz_out(fd, &outlen);
	close(in);
	close(fd);
	if (r == EX_DATAERR) {
		if (restlen > 0 && len <= (size_t)c.max_size)
			abort(); /* neither empty nor too big */
		free(out);
		return 0;
	}
	if (r != 0)
		abort();
	if (outlen == restlen) {
		if (memcmp(out, rest, restlen) != 0)
			abort();
	} else {
		/* Return-Path on top, then exactly the rest. */
		rplen = outlen - restlen;
		if (outlen < restlen || rplen >= sizeof(rp) ||
		    memcmp(out + rplen, rest, restlen) != 0)
			abort();
		memcpy(rp, out, rplen);
		rp[rplen] = '\0';
		fuzz_return_path(rp, had_sender ? "s@example.net" : NULL);
		/* Without a sender only a From_ line can have given one. */
		if (!had_sender && rest == text)
			abort();
	}
	free(out);
	return 0;
}
