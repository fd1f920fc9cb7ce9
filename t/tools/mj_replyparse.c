/*
 * mj_replyparse - feed standard input to the SMTP reply parser
 * (smtp/smtp_reply.c) in chunks of -c bytes and print each reply:
 * "code dsn lines=N text" with the text as smtp_reply_format gives it,
 * or "error: why".  The tests use it on canned bytes; it is also the
 * shape of a fuzzing harness.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>
#include <unistd.h>

#include "smtp.h"

/* main - read everything, feed it in chunks, print the replies */
int
main(int argc, char **argv)
{
	static struct smtp_reply_parser p;
	char *buf = NULL, line[SMTP_REPLY_TEXT_MAX + 32];
	size_t len = 0, cap = 0, off = 0, n, used;
	enum smtp_reply_status rs;
	ssize_t r;
	int c, chunk = 4096;

	while ((c = getopt(argc, argv, "c:")) != -1)
		if (c != 'c' || (chunk = atoi(optarg)) < 1)
			errx(
			    EX_USAGE, "usage: mj_replyparse [-c chunk] <bytes");
	do {
		if (len == cap && (buf = realloc(buf, cap += 65536)) == NULL)
			err(EX_OSERR, "realloc");
		if ((r = read(0, buf + len, cap - len)) == -1)
			err(EX_IOERR, "read");
		len += r;
	} while (r > 0);
	smtp_reply_init(&p);
	while (off < len) {
		n = len - off < (size_t)chunk ? len - off : (size_t)chunk;
		rs = smtp_reply_feed(&p, buf + off, n, &used);
		off += used;
		if (rs == SMTP_REPLY_DONE) {
			smtp_reply_format(&p.reply, line, sizeof(line));
			printf("lines=%d %s\n", p.reply.nlines, line);
		} else if (rs == SMTP_REPLY_ERROR) {
			printf("error: %s\n", p.error);
			break;
		}
	}
	if (off == len && p.linelen > 0)
		printf("incomplete\n");
	free(buf);
	return 0;
}
