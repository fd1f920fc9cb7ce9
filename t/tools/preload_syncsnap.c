/*
 * preload_syncsnap.c - an LD_PRELOAD shim for the power-loss tests
 * (t/630-powerloss.bats): what a power loss would leave of a file.
 *
 * At every fsync or fdatasync of a regular file, the file as the call
 * finds it (what the call makes durable) is copied to
 * $MJQ_SYNCSNAP_DIR/<inode> (through a tmp name and rename, so a kill -9
 * never leaves half a copy), then the real call is made.  That copy is
 * the last form of the file the disk holds: a test that kills the
 * process and writes the copy back over the file has the file as it
 * would be after a power loss that dropped every write not synced.  The
 * copy is made first so that a kill between the end of the call and the
 * copy cannot make a test count a synced update as lost; a kill inside
 * the call counts the sync as done.
 * A file linked under another name after its sync (the commit protocol:
 * tmp, fsync, link) keeps its inode, so its copy is found by the inode
 * of the name it has now.  Without MJQ_SYNCSNAP_DIR the shim does
 * nothing but the calls.  Built as t/tools/preload_syncsnap.so, without
 * the sanitizers (a preloaded library comes before their runtime).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* syncsnap_copy - fd's whole text into the copy for its inode */
static void
syncsnap_copy(int fd)
{
	char tmp[PATH_MAX], path[PATH_MAX], buf[65536];
	const char *dir = getenv("MJQ_SYNCSNAP_DIR");
	struct stat sb;
	off_t off = 0;
	ssize_t n;
	int out, e = errno;

	if (dir == NULL || fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode))
		goto done;
	snprintf(
	    path, sizeof(path), "%s/%llu", dir, (unsigned long long)sb.st_ino);
	snprintf(tmp, sizeof(tmp), "%s/.%llu.%ld", dir,
	    (unsigned long long)sb.st_ino, (long)gettid());
	if ((out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) ==
	    -1)
		goto done;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
		off += n;
	}
	if (close(out) == -1 || n == -1 || rename(tmp, path) == -1)
		(void)unlink(tmp);
done:
	errno = e;
}

/* fsync - the copy, then the real one */
int
fsync(int fd)
{
	static int (*real)(int);

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	syncsnap_copy(fd);
	return real(fd);
}

/* fdatasync - the copy, then the real one */
int
fdatasync(int fd)
{
	static int (*real)(int);

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	syncsnap_copy(fd);
	return real(fd);
}
