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

/* io_open_private - path open for reading when it is a regular file
 * that only its owner can read (mode 0600 or 0400), not a symbolic
 * link, of 1 to maxsize - 1 bytes, with its status in sb (for a key or
 * a secret); -1 cannot be opened (errno), -2 open but not so (closed) */
int
io_open_private(const char *path, off_t maxsize, struct stat *sb)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, sb) == -1 || !S_ISREG(sb->st_mode) ||
	    (sb->st_mode & 077) != 0 || sb->st_size <= 0 ||
	    sb->st_size >= maxsize) {
		close(fd);
		return -2;
	}
	return fd;
}
