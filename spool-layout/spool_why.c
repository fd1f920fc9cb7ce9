/*
 * spool_why.c - the .<name>.why file beside a message.
 *
 * spool_move commits it (the reason a message was moved); readers get
 * its first line.  In HOLD/ and BAD/ it says why the message is there; a
 * message released into QUEUE/ carries one saying who released it, which
 * the runner reads at expansion (the posting policy and size limit are
 * not applied again) and removes once the message has its state file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool_why.h"

/* spool_why_path - .<name>.why beside the message at msgpath */
static int
spool_why_path(char *buf, size_t len, const char *msgpath)
{
	const char *slash = strrchr(msgpath, '/');
	int n;

	if (slash == NULL) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(buf, len, "%.*s/.%s.why", (int)(slash - msgpath), msgpath,
	    slash + 1);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* spool_why_read - the first line of the message's .why in buf, and
 * when it was written (the time of the move) in *when if not NULL; -1
 * with errno ENOENT when there is none */
int
spool_why_read(const char *msgpath, char *buf, size_t len, time_t *when)
{
	char path[PATH_MAX];
	struct stat sb;
	ssize_t n;
	int fd;

	if (len == 0 || spool_why_path(path, sizeof(path), msgpath) == -1)
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return -1;
	if (when != NULL && fstat(fd, &sb) == 0)
		*when = sb.st_mtime;
	while ((n = read(fd, buf, len - 1)) == -1 && errno == EINTR)
		;
	close(fd);
	if (n == -1)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

/* spool_why_remove - remove the message's .why, if any */
int
spool_why_remove(const char *msgpath)
{
	char path[PATH_MAX];

	if (spool_why_path(path, sizeof(path), msgpath) == -1)
		return -1;
	return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
}
