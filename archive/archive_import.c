/*
 * archive_import.c - an old archive read post by post, each stored as
 * the inbox's posts are (archive_ingest_add: batches of one transaction
 * each), under the identity "import-" and the FNV-1a 64 of its text, so
 * an import run again skips what it stored.  Memory holds one post at
 * a time.  The batches are committed unsynced, the whole synced once
 * at the end (archive_db_bulk).  An mbox's posts are split at "From "
 * lines; a line quoted as ">From " (mboxrd, and mboxo's own) loses one
 * '>'.
 */
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archive_db.h"
#include "archive_import.h"
#include "archive_ingest.h"
#include "archive_pages.h"
#include "fnv.h"
#include "log.h"

/* What an import has done so far. */
struct archive_import {
	struct archive_list *al;
	long seen, stored;
	int tty;
};

/* archive_import_post - one post stored */
static int
archive_import_post(struct archive_import *im, const char *text, size_t len)
{
	char entry[64];
	int k;

	if (len == 0)
		return 0;
	snprintf(entry, sizeof(entry), "import-%016" PRIx64,
	    fnv1a(FNV1A_BASIS, text, len));
	if ((k = archive_ingest_add(im->al, entry, text, len, time(NULL))) ==
	    -1)
		return -1;
	im->stored += k;
	if (++im->seen % 1000 == 0 && im->tty)
		fprintf(stderr, "\rmj_archive: %ld posts read, %ld stored",
		    im->seen, im->stored);
	return 0;
}

/* archive_import_mbox - the posts of an mbox */
static int
archive_import_mbox(struct archive_import *im, FILE *fp)
{
	char *line = NULL, *post = NULL;
	size_t cap = 0, len = 0, pcap = 0, n, skip;
	ssize_t k;
	int r = 0, blank = 1;
	char *np;

	while (r == 0 && (k = getline(&line, &cap, fp)) != -1) {
		if (blank && k >= 5 && memcmp(line, "From ", 5) == 0) {
			r = archive_import_post(im, post, len);
			len = 0;
			continue;
		}
		blank = k == 1 || (k == 2 && line[0] == '\r');
		/* ">From " and ">>From ": one '>' less */
		skip = strspn(line, ">");
		skip = skip > 0 && strncmp(line + skip, "From ", 5) == 0;
		n = (size_t)k - skip;
		if (len + n + 1 > pcap) {
			pcap = (len + n + 1) * 2;
			if ((np = realloc(post, pcap)) == NULL) {
				r = -1;
				break;
			}
			post = np;
		}
		memcpy(post + len, line + skip, n);
		len += n;
	}
	if (r == 0 && ferror(fp))
		r = -1;
	if (r == 0)
		r = archive_import_post(im, post, len);
	free(line);
	free(post);
	return r;
}

/* archive_import_file - a file of one post */
static int
archive_import_file(struct archive_import *im, const char *path)
{
	FILE *fp;
	int r;

	if ((fp = fopen(path, "r")) == NULL)
		return errno == ENOENT ? 0 : -1;
	r = archive_import_mbox(im, fp); /* a leading From_ line is dropped */
	if (fclose(fp) != 0)
		r = -1;
	return r;
}

/* archive_import_cmp - file names, numbers by value (mlmmj: 1, 2, 10) */
static int
archive_import_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strspn(x, "0123456789"), ly = strspn(y, "0123456789");

	if (lx > 0 && ly > 0 && x[lx] == '\0' && y[ly] == '\0' && lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

/* archive_import_dir - each regular file of dir, in name order */
static int
archive_import_dir(struct archive_import *im, const char *dir)
{
	char path[PATH_MAX], **v = NULL, **nv;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int r = 0;

	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL) {
				r = -1;
				break;
			}
			v = nv;
		}
		if ((v[n] = strdup(de->d_name)) == NULL)
			r = -1;
		else
			n++;
	}
	closedir(d);
	if (r == 0 && n > 1)
		qsort(v, n, sizeof(*v), archive_import_cmp);
	for (i = 0; i < n; i++) {
		if (r == 0 && snprintf(path, sizeof(path), "%s/%s", dir, v[i]) <
				  (int)sizeof(path))
			r = archive_import_file(im, path);
		free(v[i]);
	}
	free(v);
	return r;
}

/* archive_import_path - an mbox, a maildir, or a directory of posts */
static int
archive_import_path(struct archive_import *im, const char *path)
{
	char sub[PATH_MAX];
	struct stat sb;
	FILE *fp;
	int r;

	if (stat(path, &sb) == -1)
		return -1;
	if (S_ISDIR(sb.st_mode)) {
		snprintf(sub, sizeof(sub), "%s/cur", path);
		if (stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			if (archive_import_dir(im, sub) == -1)
				return -1;
			snprintf(sub, sizeof(sub), "%s/new", path);
			return archive_import_dir(im, sub);
		}
		return archive_import_dir(im, path);
	}
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	r = archive_import_mbox(im, fp);
	if (fclose(fp) != 0)
		r = -1;
	return r;
}

/* archive_import - path into the index, then the pages (unless
 * index_only: they stay marked, for the next run or rebuild) */
long
archive_import(struct archive_list *al, const char *path, int index_only)
{
	struct archive_import im = {al, 0, 0, isatty(2)};
	int r;

	al->bulk = 1;
	/* the batches' commits unsynced: a crash loses at most the last
	 * ones, which the import run again stores (each post once, by its
	 * text); everything is synced before the first page is written */
	r = archive_db_bulk(al->db, 1) == -1 ? -1
					     : archive_import_path(&im, path);
	if (archive_ingest_end(al, r == 0) == -1)
		r = -1;
	if (archive_db_bulk(al->db, 0) == -1)
		r = -1;
	if (im.tty)
		fprintf(stderr, "\rmj_archive: %ld posts read, %ld stored\n",
		    im.seen, im.stored);
	if (r == -1) {
		log_warn("%s@%s: import %s", al->list, al->domain, path);
		return -1;
	}
	if (!index_only && archive_pages_flush(al) == -1)
		return -1;
	return im.stored;
}
