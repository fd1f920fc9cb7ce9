/*
 * archive_write.h - files of the archive's pages written so that a
 * reader sees the old page or the new one (archive_write.c).
 */
#ifndef MJQ_ARCHIVE_WRITE_H
#define MJQ_ARCHIVE_WRITE_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

/* A page being written: a tmp file beside it (tmp "": in place). */
struct archive_page {
	FILE *fp;
	char tmp[PATH_MAX], path[PATH_MAX];
};

/* archive_write_mkdirs - dir and its missing parents, with mode */
int archive_write_mkdirs(const char *dir, mode_t mode);
/* archive_write_open - the page www/rel begun (its directories made;
 * rel must be relative with no ".." part); 0 or -1 */
int archive_write_open(
    struct archive_page *pg, const char *www, const char *rel, mode_t mode);
/* archive_write_open_new - as archive_write_open, but a page with
 * nothing at its address is written in place (no tmp, no rename): an
 * import's new pages, which no reader had */
int archive_write_open_new(
    struct archive_page *pg, const char *www, const char *rel, mode_t mode);
/* archive_write_abort - the page given up, its file removed */
void archive_write_abort(struct archive_page *pg);
/* archive_write_close - renamed over the page (made durable by the
 * run's syncfs); 0 or -1 (the tmp file removed) */
int archive_write_close(struct archive_page *pg);
/* archive_write_file - a whole file at once */
int archive_write_file(const char *www, const char *rel, const void *data,
    size_t len, mode_t mode);

#endif
