/*
 * archive_write.c - a page written as a tmp file in its own directory,
 * then rename()d over the old one: a reader (the web server) sees the
 * whole old page or the whole new one.  Nothing is fsync'd here: a page
 * stays marked dirty in the index until one syncfs() after all of a
 * run's pages (archive/README, A4), so a page a power loss took is
 * written again by the next run.
 */
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "archive_write.h"

/* archive_write_mkdirs - mkdir -p: the directory itself first (its
 * parents are there but for a new list), then from the top down */
int
archive_write_mkdirs(const char *dir, mode_t mode)
{
	char path[PATH_MAX], *p;

	if (strlcpy(path, dir, sizeof(path)) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdir(path, mode) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	for (p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(path, mode) == -1 && errno != EEXIST)
			return -1;
		if ((*p = c) == '\0')
			return 0;
	}
}

/* archive_write_safe - rel is relative and has no "." or ".." part */
static int
archive_write_safe(const char *rel)
{
	const char *p = rel;

	if (*p == '/' || *p == '\0')
		return 0;
	for (; *p != '\0'; p = strchr(p, '/') ? strchr(p, '/') + 1 : "") {
		if (p[0] == '.' &&
		    (p[1] == '/' || p[1] == '\0' ||
			(p[1] == '.' && (p[2] == '/' || p[2] == '\0'))))
			return 0;
		if (p[0] == '/')
			return 0; /* an empty part */
	}
	return 1;
}

/* archive_write_path - pg begun: its path www/rel, rel checked */
static int
archive_write_path(struct archive_page *pg, const char *www, const char *rel)
{
	int n;

	memset(pg, 0, sizeof(*pg));
	if (!archive_write_safe(rel)) {
		errno = EINVAL;
		return -1;
	}
	if ((n = snprintf(pg->path, sizeof(pg->path), "%s/%s", www, rel)) < 0 ||
	    (size_t)n >= sizeof(pg->path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* archive_write_fp - the stream of fd, the file opened for pg (its tmp,
 * or its path when written in place) */
static int
archive_write_fp(struct archive_page *pg, int fd)
{
	if (fd == -1)
		return -1;
	if ((pg->fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		(void)unlink(pg->tmp[0] != '\0' ? pg->tmp : pg->path);
		return -1;
	}
	return 0;
}

/* archive_write_open - the tmp file of www/rel */
int
archive_write_open(
    struct archive_page *pg, const char *www, const char *rel, mode_t mode)
{
	char dir[PATH_MAX], *slash;
	int fd, n;

	if (archive_write_path(pg, www, rel) == -1)
		return -1;
	if ((n = snprintf(pg->tmp, sizeof(pg->tmp), "%s.tmp", pg->path)) < 0 ||
	    (size_t)n >= sizeof(pg->tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* the directory is there but for a new post, month or list */
	if ((fd = open(pg->tmp,
		 O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		 mode)) == -1 &&
	    errno == ENOENT) {
		(void)strlcpy(dir, pg->path, sizeof(dir)); /* fits: shorter */
		if ((slash = strrchr(dir, '/')) != NULL) {
			*slash = '\0';
			if (archive_write_mkdirs(
				dir, mode | (mode & 0444) >> 2) == -1)
				return -1;
		}
		fd = open(pg->tmp,
		    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    mode);
	}
	return archive_write_fp(pg, fd);
}

/* archive_write_open_new - the page www/rel, written in place when
 * nothing is at its address (an import's new post: its directory made
 * here, or no file in it), else as archive_write_open: no tmp file and
 * no rename for a page that replaces none.  A reader may see a new page
 * while it is written; one cut by a crash stays dirty, and is written
 * again by tmp and rename (it is there then) */
int
archive_write_open_new(
    struct archive_page *pg, const char *www, const char *rel, mode_t mode)
{
	char *slash;
	int fd, n;

	if (archive_write_path(pg, www, rel) == -1)
		return -1;
	if ((slash = strrchr(pg->path, '/')) == NULL)
		return archive_write_open(pg, www, rel, mode);
	*slash = '\0';
	n = mkdir(pg->path, mode | (mode & 0444) >> 2);
	*slash = '/';
	if (n == -1 && errno != EEXIST)
		return archive_write_open(pg, www, rel, mode);
	if ((fd = open(pg->path,
		 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)) ==
		-1 &&
	    errno == EEXIST)
		return archive_write_open(pg, www, rel, mode);
	return archive_write_fp(pg, fd);
}

/* archive_write_abort - the page given up: its tmp file removed (or the
 * new page written in place) */
void
archive_write_abort(struct archive_page *pg)
{
	int e = errno;

	(void)fclose(pg->fp);
	(void)unlink(pg->tmp[0] != '\0' ? pg->tmp : pg->path);
	errno = e;
}

/* archive_write_close - the page in place */
int
archive_write_close(struct archive_page *pg)
{
	int e;

	if (fflush(pg->fp) != 0 || ferror(pg->fp)) {
		archive_write_abort(pg);
		return -1;
	}
	if (pg->tmp[0] == '\0') /* written in place */
		return fclose(pg->fp) == 0 ? 0 : -1;
	if (fclose(pg->fp) != 0 || rename(pg->tmp, pg->path) == -1) {
		e = errno;
		(void)unlink(pg->tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* archive_write_file - data as www/rel */
int
archive_write_file(
    const char *www, const char *rel, const void *data, size_t len, mode_t mode)
{
	struct archive_page pg;

	if (archive_write_open(&pg, www, rel, mode) == -1)
		return -1;
	if (len > 0)
		(void)fwrite(data, 1, len, pg.fp);
	return archive_write_close(&pg);
}
