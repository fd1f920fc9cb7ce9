/*
 * spool_walk.c - visit every message under QUEUE/, HOLD/ or BAD/.
 *
 * Priority directories are read and sorted numerically, high first, so
 * the order is the priority order whatever readdir returns.  Directory
 * entries that do not fit the layout are skipped here (the tree is the
 * contract; see spool-layout/README).  The walk holds at most one
 * directory listing per level in memory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "spool_walk.h"

/* walk_prio - a two-digit priority directory name, or -1 */
static int
walk_prio(const char *name)
{
	if (name[0] < '0' || name[0] > '9' || name[1] < '0' || name[1] > '9' ||
	    name[2] != '\0')
		return -1;
	return (name[0] - '0') * 10 + (name[1] - '0');
}

/* walk_cmp_desc - qsort: priority names, highest first */
static int
walk_cmp_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/* walk_list - the names in a directory (dot names only if asked, never
 * . and ..), sorted if asked; -1 when the directory cannot be read */
static int
walk_list(const char *dir, char ***out, size_t *count, int sort, int dots)
{
	DIR *d;
	struct dirent *de;
	char **v = NULL, **nv;
	size_t n = 0, cap = 0;

	*count = 0;
	*out = NULL;
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' &&
		    (!dots || strcmp(de->d_name, ".") == 0 ||
			strcmp(de->d_name, "..") == 0))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				goto fail;
			v = nv;
		}
		if ((v[n] = strdup(de->d_name)) == NULL)
			goto fail;
		n++;
	}
	closedir(d);
	if (sort && n > 1)
		qsort(v, n, sizeof(*v), walk_cmp_desc);
	*count = n;
	*out = v;
	return 0;
fail:
	while (n > 0)
		free(v[--n]);
	free(v);
	closedir(d);
	return -1;
}

/* walk_free - free a listing */
static void
walk_free(char **v, size_t n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

/* walk_files - the messages of one function directory */
static int
walk_files(struct spool_entry *e, const char *dir, spool_walk_fn *fn, void *arg,
    int dots)
{
	char **files;
	size_t n, i;
	int stop = 0, r;

	if (walk_list(dir, &files, &n, 0, dots) == -1)
		return 0;
	for (i = 0; i < n && !stop; i++) {
		r = snprintf(e->path, sizeof(e->path), "%s/%s", dir, files[i]);
		if (r < 0 || (size_t)r >= sizeof(e->path))
			continue;
		if (lstat(e->path, &e->st) == -1)
			continue; /* finished by another runner meanwhile */
		e->file = files[i];
		e->dot = files[i][0] == '.';
		e->stray =
		    !S_ISREG(e->st.st_mode) ||
		    (!e->dot && spool_name_parse(files[i], &e->name) == -1);
		stop = fn(arg, e);
	}
	walk_free(files, n);
	return stop;
}

/* walk_tier - every function directory of one domain and list tier */
static int
walk_tier(struct spool_entry *e, const char *dir, spool_walk_fn *fn, void *arg,
    int dots)
{
	char path[PATH_MAX];
	int f, r;

	for (f = 0; f < SPOOL_FN_COUNT; f++) {
		e->function = (enum spool_function)f;
		r = snprintf(path, sizeof(path), "%s/%s", dir,
		    spool_function_name(e->function));
		if (r < 0 || (size_t)r >= sizeof(path))
			continue;
		if (walk_files(e, path, fn, arg, dots))
			return 1;
	}
	return 0;
}

/* walk_top - every entry of the function directories under $spool/top */
static int
walk_top(
    const char *spool, const char *top, spool_walk_fn *fn, void *arg, int dots)
{
	char root[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX], p3[PATH_MAX];
	char **xx, **dom, **yy;
	size_t nxx, ndom, nyy, i, j, k;
	struct spool_entry e;
	int stop = 0;

	memset(&e, 0, sizeof(e));
	e.top = top;
	if (spool_path(root, sizeof(root), spool, top) == -1)
		return -1;
	if (walk_list(root, &xx, &nxx, 1, 0) == -1)
		return -1;
	for (i = 0; i < nxx && !stop; i++) {
		if ((e.domain_prio = walk_prio(xx[i])) == -1 ||
		    (size_t)snprintf(p1, sizeof(p1), "%s/%s", root, xx[i]) >=
			sizeof(p1) ||
		    walk_list(p1, &dom, &ndom, 0, 0) == -1)
			continue;
		for (j = 0; j < ndom && !stop; j++) {
			e.domain = dom[j];
			if ((size_t)snprintf(p2, sizeof(p2), "%s/%s", p1,
				dom[j]) >= sizeof(p2) ||
			    walk_list(p2, &yy, &nyy, 1, 0) == -1)
				continue;
			for (k = 0; k < nyy && !stop; k++) {
				if ((e.list_prio = walk_prio(yy[k])) == -1 ||
				    (size_t)snprintf(p3, sizeof(p3), "%s/%s",
					p2, yy[k]) >= sizeof(p3))
					continue;
				stop = walk_tier(&e, p3, fn, arg, dots);
			}
			walk_free(yy, nyy);
		}
		walk_free(dom, ndom);
	}
	walk_free(xx, nxx);
	return stop;
}

/* spool_walk - every message under $spool/top, priority order; returns
 * -1 when top cannot be read, 1 when the callback stopped it, else 0 */
int
spool_walk(const char *spool, const char *top, spool_walk_fn *fn, void *arg)
{
	return walk_top(spool, top, fn, arg, 0);
}

/* spool_walk_dots - as spool_walk, and the dot files beside the messages
 * too (state, .why, .try), flagged e->dot: for the check pass */
int
spool_walk_dots(
    const char *spool, const char *top, spool_walk_fn *fn, void *arg)
{
	return walk_top(spool, top, fn, arg, 1);
}

/* spool_state_path - the state file of a message: .<name> beside it */
int
spool_state_path(char *buf, size_t len, const char *message_path)
{
	const char *slash = strrchr(message_path, '/');
	int r;

	if (slash == NULL)
		r = snprintf(buf, len, ".%s", message_path);
	else
		r = snprintf(buf, len, "%.*s/.%s", (int)(slash - message_path),
		    message_path, slash + 1);
	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}
