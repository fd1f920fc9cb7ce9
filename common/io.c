/*
 * io.c - small I/O helpers with no mail knowledge.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
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

/* io_fsync_close - fsync and close fd (closed either way): 0, or -1
 * with the errno of the fsync or close that failed */
int
io_fsync_close(int fd)
{
	int saved;

	if (fsync(fd) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

/* io_fsync_dir - make a directory's entries durable: 0, or -1 with the
 * errno of the open, fsync or close that failed */
int
io_fsync_dir(const char *dir)
{
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	return io_fsync_close(fd);
}

/* io_fsync_parent - make the directory entry of path durable (the
 * directory it is in, "." for a bare name) */
int
io_fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash;
	size_t len;

	if ((slash = strrchr(path, '/')) == NULL)
		return io_fsync_dir(".");
	if ((len = (size_t)(slash - path)) == 0)
		len = 1; /* the root */
	if (len >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, len);
	dir[len] = '\0';
	return io_fsync_dir(dir);
}
