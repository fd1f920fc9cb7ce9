/*
 * text_file.c - a message's text as it is delivered: in an anonymous
 * file (a memfd) every delivery thread can pread, once per text.
 */
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io.h"
#include "lists.h"
#include "listfn_msg.h"
#include "text_file.h"

/* text_file_memfd - the delivered text (a, then b) in an anonymous file that
 * every worker can pread */
int
text_file_memfd(struct listfn_msg *m, const char *a, size_t alen, const char *b,
    size_t blen)
{
	int fd;

	if ((fd = memfd_create("mjq-message", MFD_CLOEXEC)) == -1)
		return -1;
	if (io_write_all(fd, a, alen) == -1 ||
	    io_write_all(fd, b, blen) == -1) {
		close(fd);
		return -1;
	}
	m->datafd = fd;
	m->datasize = (off_t)(alen + blen);
	return 0;
}

/* text_file_plain - the text as stored, minus Return-Path (the final
 * delivery agent adds one) */
int
text_file_plain(struct listfn_msg *m, const char *text, size_t len)
{
	const char *hend = header_end(text, len), *p = text, *nl;

	/* mj_enqueue puts Return-Path on top; it is the only one removed. */
	if (hend - p > 12 && strncasecmp(p, "Return-Path:", 12) == 0 &&
	    (nl = memchr(p, '\n', (size_t)(hend - p))) != NULL) {
		p = nl + 1;
		while (p < hend && (*p == ' ' || *p == '\t') &&
		       (nl = memchr(p, '\n', (size_t)(hend - p))) != NULL)
			p = nl + 1;
	}
	return text_file_memfd(m, p, (size_t)(text + len - p), "", 0);
}
