/*
 * io.c - small I/O helpers with no mail knowledge.
 */
#include <errno.h>
#include <unistd.h>

#include "io.h"

/* io_write_all - write the whole buffer (retrying short writes and EINTR),
 * or -1 with errno.  On a socket, the caller ignores SIGPIPE. */
int
io_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
