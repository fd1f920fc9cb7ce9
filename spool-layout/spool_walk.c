/*
 * spool_walk.c - visit every message under QUEUE/, HOLD/ or BAD/.
 *
 * Priority directories are read and sorted numerically, high first, so
 * the order is the priority order whatever readdir returns.  Directory
 * entries that do not fit the layout are skipped here (the tree is the
 * contract; see spool-layout/README).  The walk holds at most one
 * directory listing per level above the messages in memory; the
 * messages of a function directory are read as readdir gives them.  A
 * directory that exists but cannot be read (wrong owner or mode) is skipped
 * too; with SPOOL_WALK_ERRORS the callback is told, so that the runner can log
 * it and the check pass report it instead of losing its messages silently.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "spool_walk.h"

/* One walk: the callback, what it asked to see, whether it stopped. */
struct walk_run {
	spool_walk_fn *fn;
	void *arg;
	int flags;
	int stop;
};

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
	int saved;

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
	saved = errno;
	while (n > 0)
		free(v[--n]);
	free(v);
	closedir(d);
	errno = saved;
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

/* walk_report - tell the callback about a directory, or an entry that
 * could not be examined (err), when it asked for such entries */
static void
walk_report(struct walk_run *w, struct spool_entry *e, const char *path,
    int dir, int err)
{
	const char *slash;

	if (w->stop || (err != 0 && !(w->flags & SPOOL_WALK_ERRORS)) ||
	    (err == 0 && !(dir && (w->flags & SPOOL_WALK_DIRS))))
		return;
	if (strlcpy(e->path, path, sizeof(e->path)) >= sizeof(e->path))
		return;
	memset(&e->st, 0, sizeof(e->st));
	if (lstat(path, &e->st) == -1 && err == 0)
		return; /* gone meanwhile */
	slash = strrchr(e->path, '/');
	e->file = slash != NULL ? slash + 1 : e->path;
	e->dot = 0;
	e->stray = 1; /* not a message */
	e->dir = dir;
	e->error = err;
	w->stop = w->fn(w->arg, e);
	e->dir = e->error = 0;
}

/* walk_dir - list one directory of the tree and report it; -1 (and
 * nothing to walk) when it is missing or cannot be read */
static int
walk_dir(struct walk_run *w, struct spool_entry *e, const char *dir,
    char ***out, size_t *n, int sort, int dots)
{
	if (walk_list(dir, out, n, sort, dots) == -1) {
		if (errno != ENOENT)
			walk_report(w, e, dir, 1, errno);
		return -1;
	}
	walk_report(w, e, dir, 1, 0);
	return 0;
}

/* walk_orphan - 1 when the dot file .X in the directory dfd is a state
 * file or .try with no message: none named X, nor X without a ".try"
 * ending (a list name may end so itself, hence both).  One fstatat per
 * dot file, so the directory is never listed in memory.  A .why is never
 * one here: a move writes it before its message, without a lock
 * (mj_queuerun -c removes old ones) */
static int
walk_orphan(int dfd, const char *dotname)
{
	char owner[NAME_MAX + 1];
	size_t len = strlen(dotname + 1);
	struct stat sb;

	if (len == 0 || len > NAME_MAX)
		return 0;
	memcpy(owner, dotname + 1, len + 1);
	if (len > 4 && strcmp(owner + len - 4, ".why") == 0)
		return 0;
	if (fstatat(dfd, owner, &sb, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT)
		return 0;
	if (len > 4 && strcmp(owner + len - 4, ".try") == 0) {
		owner[len - 4] = '\0';
		if (fstatat(dfd, owner, &sb, AT_SYMLINK_NOFOLLOW) == 0 ||
		    errno != ENOENT)
			return 0;
	}
	return 1;
}

/* walk_files - the messages of one function directory, as readdir
 * gives them: never listed in memory, so a directory of any size costs
 * the same (a backlog of 200,000 posts to one list is one directory) */
static void
walk_files(struct walk_run *w, struct spool_entry *e, const char *dir)
{
	struct dirent *de;
	DIR *d;
	int r, orphans = w->flags & SPOOL_WALK_ORPHANS;

	if ((d = opendir(dir)) == NULL) {
		if (errno != ENOENT)
			walk_report(w, e, dir, 1, errno);
		return;
	}
	walk_report(w, e, dir, 1, 0);
	while (!w->stop && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		e->orphan = de->d_name[0] == '.' && orphans &&
			    walk_orphan(dirfd(d), de->d_name);
		if (de->d_name[0] == '.' && !(w->flags & SPOOL_WALK_DOTS) &&
		    !e->orphan)
			continue;
		r = snprintf(
		    e->path, sizeof(e->path), "%s/%s", dir, de->d_name);
		if (r < 0 || (size_t)r >= sizeof(e->path))
			continue;
		e->file = de->d_name;
		if (lstat(e->path, &e->st) == -1) {
			/* ENOENT: finished by another runner meanwhile */
			if (errno != ENOENT)
				walk_report(w, e, e->path, 0, errno);
			continue;
		}
		e->dot = de->d_name[0] == '.';
		e->stray =
		    !S_ISREG(e->st.st_mode) ||
		    (!e->dot && spool_name_parse(de->d_name, &e->name) == -1);
		w->stop = w->fn(w->arg, e);
	}
	e->orphan = 0;
	closedir(d);
}

/* walk_tier - every function directory of one domain and list tier */
static void
walk_tier(struct walk_run *w, struct spool_entry *e, const char *dir)
{
	char path[PATH_MAX];
	int f, r;

	for (f = 0; f < SPOOL_FN_COUNT && !w->stop; f++) {
		e->function = (enum spool_function)f;
		r = snprintf(path, sizeof(path), "%s/%s", dir,
		    spool_function_name(e->function));
		if (r < 0 || (size_t)r >= sizeof(path))
			continue;
		walk_files(w, e, path);
	}
}

/* walk_top - every entry of the function directories under $spool/top;
 * -1 when top itself cannot be read, 1 when the callback stopped it */
static int
walk_top(struct walk_run *w, const char *spool, const char *top)
{
	char root[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX], p3[PATH_MAX];
	char **xx, **dom, **yy, **fn;
	size_t nxx, ndom, nyy, nfn, i, j, k;
	struct spool_entry e;

	memset(&e, 0, sizeof(e));
	e.top = top;
	if (spool_path(root, sizeof(root), spool, top) == -1)
		return -1;
	if (walk_list(root, &xx, &nxx, 1, 0) == -1)
		return -1;
	for (i = 0; i < nxx && !w->stop; i++) {
		e.domain = "";
		if ((e.domain_prio = walk_prio(xx[i])) == -1 ||
		    (size_t)snprintf(p1, sizeof(p1), "%s/%s", root, xx[i]) >=
			sizeof(p1) ||
		    walk_dir(w, &e, p1, &dom, &ndom, 0, 0) == -1)
			continue;
		for (j = 0; j < ndom && !w->stop; j++) {
			e.domain = dom[j];
			if ((size_t)snprintf(p2, sizeof(p2), "%s/%s", p1,
				dom[j]) >= sizeof(p2) ||
			    walk_dir(w, &e, p2, &yy, &nyy, 1, 0) == -1)
				continue;
			for (k = 0; k < nyy && !w->stop; k++) {
				if ((e.list_prio = walk_prio(yy[k])) == -1 ||
				    (size_t)snprintf(p3, sizeof(p3), "%s/%s",
					p2, yy[k]) >= sizeof(p3))
					continue;
				/* Read only to know it can be: the
				 * function names are fixed. */
				if (walk_dir(w, &e, p3, &fn, &nfn, 0, 0) == -1)
					continue;
				walk_free(fn, nfn);
				walk_tier(w, &e, p3);
			}
			walk_free(yy, nyy);
		}
		walk_free(dom, ndom);
	}
	walk_free(xx, nxx);
	return w->stop ? 1 : 0;
}

/* spool_walk - every message under $spool/top, priority order; returns
 * -1 when top cannot be read, 1 when the callback stopped it, else 0 */
int
spool_walk(const char *spool, const char *top, spool_walk_fn *fn, void *arg)
{
	return spool_walk_flags(spool, top, 0, fn, arg);
}

/* spool_walk_flags - as spool_walk, with more shown to the callback as
 * flags ask (SPOOL_WALK_DOTS, SPOOL_WALK_ERRORS, SPOOL_WALK_DIRS) */
int
spool_walk_flags(
    const char *spool, const char *top, int flags, spool_walk_fn *fn, void *arg)
{
	struct walk_run w = {fn, arg, flags, 0};

	return walk_top(&w, spool, top);
}

/* spool_walk_tops - spool_walk_flags over every top that holds messages
 * (spool_message_tops: QUEUE, HOLD, BAD); -1 when QUEUE/ cannot be read
 * (a missing HOLD/ or BAD/ is no error), 1 when the callback stopped it */
int
spool_walk_tops(const char *spool, int flags, spool_walk_fn *fn, void *arg)
{
	size_t i;
	int r;

	for (i = 0; spool_message_tops[i] != NULL; i++) {
		r = spool_walk_flags(
		    spool, spool_message_tops[i], flags, fn, arg);
		if (r == 1 || (r == -1 && i == 0))
			return r;
	}
	return 0;
}
