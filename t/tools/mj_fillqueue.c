/*
 * mj_fillqueue - a backlog for tests and benchmarks: N small list posts
 * to LIST@DOMAIN written straight into QUEUE/ (no mj_enqueue, no fsync),
 * due an hour ago.
 *
 *   mj_fillqueue SPOOL DOMAIN LIST N
 *
 * The directory comes from spool-layout (spool_queue_dir), the names are
 * <hour><uu>-<i>-<list> with i counting up, so each is unique; every
 * message is its own file (a claim is a lock on the file).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spool_path.h"

/* fill_mkdirs - every level of dir below spool */
static void
fill_mkdirs(const char *spool, const char *dir)
{
	char p[PATH_MAX];
	size_t i;

	if (strlcpy(p, dir, sizeof(p)) >= sizeof(p))
		errx(1, "path too long");
	for (i = strlen(spool) + 1; p[i] != '\0'; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, SPOOL_DIR_MODE) == -1 && errno != EEXIST)
			err(1, "mkdir %s", p);
		p[i] = '/';
	}
	if (mkdir(p, SPOOL_DIR_MODE) == -1 && errno != EEXIST)
		err(1, "mkdir %s", p);
}

int
main(int argc, char **argv)
{
	static const char text[] =
	    "Return-Path: <poster@example.net>\nFrom: poster@example.net\n"
	    "Subject: backlog\n\nx\n";
	char dir[PATH_MAX], path[PATH_MAX + 64];
	struct timespec ts[2];
	long n, i;
	int fd;

	if (argc != 5 || (n = strtol(argv[4], NULL, 10)) <= 0)
		errx(64, "usage: mj_fillqueue SPOOL DOMAIN LIST N");
	if (spool_queue_dir(dir, sizeof(dir), argv[1], SPOOL_QUEUE,
		SPOOL_PRIO_DEFAULT, argv[2], SPOOL_PRIO_DEFAULT,
		SPOOL_FN_LIST) == -1)
		errx(1, "path too long");
	fill_mkdirs(argv[1], dir);
	ts[0].tv_sec = time(NULL) - 3600;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/AAA-%ld-%s", dir, i + 1,
			argv[3]) >= (int)sizeof(path))
			errx(1, "path too long");
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			 SPOOL_FILE_MODE)) == -1)
			err(1, "%s", path);
		if (write(fd, text, sizeof(text) - 1) != sizeof(text) - 1 ||
		    futimens(fd, ts) == -1)
			err(1, "%s", path);
		if (close(fd) == -1)
			err(1, "%s", path);
	}
	return 0;
}
