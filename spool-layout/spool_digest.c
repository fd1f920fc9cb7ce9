/*
 * spool_digest.c - a list's digest collection in the spool:
 * $spool/state/digest/<domain>/<list>/ holds
 *
 *     lock      flock: one runner makes or sends an issue at a time
 *     counter   the last issue made (spool_digest_counter_read)
 *     posts/    the posts collected since, one file each
 *     issue/    the issue being sent (spool_digest_issue.c)
 *
 * In the spool, not the list directory, so that sending an issue is a
 * rename() into QUEUE/ on the same file system (spool-layout/README,
 * "Digests").  A post is collected with the commit protocol, under a
 * name made of its identity, so collecting it again after a crash finds
 * it there (C1-C3).
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockedit.h"
#include "spool_commit.h"
#include "spool_digest.h"
#include "spool_path.h"
#include "spool_state.h"

/* spool_digest_dir - state/digest/<domain>/<list> */
int
spool_digest_dir(char *buf, size_t len, const char *spool, const char *domain,
    const char *list)
{
	int r = snprintf(buf, len, "%s/%s/%s/%s/%s", spool, SPOOL_STATE,
	    SPOOL_DIGEST, domain, list);

	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* digest_sub - <dir>/<name> */
static int
digest_sub(char *buf, size_t len, const char *dir, const char *name)
{
	int r = snprintf(buf, len, "%s/%s", dir, name);

	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* spool_digest_collect - the post qname (its text) into the collection:
 *   C1. a tmp/ file with the text, fsync'd
 *   C2. linked as posts/<dd>-<ll>-<hash>-<qname>; EEXIST: collected
 *       before (a first processing run again after a crash); posts/
 *       fsync'd
 *   C3. the tmp name unlinked
 * 1 collected, 0 it was already, -1 error */
int
spool_digest_collect(const char *spool, const char *domain, const char *list,
    int dprio, int lprio, const char *qname, const char *text, size_t len)
{
	char dir[PATH_MAX];

	if (spool_digest_dir(dir, sizeof(dir), spool, domain, list) == -1)
		return -1;
	return spool_collect_post(spool, dir, dprio, lprio, qname, text, len);
}

/* spool_collect_post - the post qname into <dir>/posts/ by C1-C3 (the
 * digest's collection, the archive's inbox); 1 collected, 0 it was
 * already, -1 error */
int
spool_collect_post(const char *spool, const char *dir, int dprio, int lprio,
    const char *qname, const char *text, size_t len)
{
	char posts[PATH_MAX], path[PATH_MAX];
	char entry[SPOOL_DIGEST_ENTRY_MAX + 1];
	struct spool_msgid id;
	struct spool_tmp t;
	int r, n;

	spool_msgid_of(&id, text, len);
	n = snprintf(entry, sizeof(entry), "%02d-%02d-%016" PRIx64 "-%s", dprio,
	    lprio, id.hash, qname);
	if (n < 0 || (size_t)n >= sizeof(entry) ||
	    digest_sub(posts, sizeof(posts), dir, "posts") == -1 ||
	    digest_sub(path, sizeof(path), posts, entry) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (spool_mkdirs(spool, posts) == -1 ||
	    spool_tmp_put(&t, spool, text, len) == -1)
		return -1;
	if (link(t.path, path) == 0)
		r = spool_fsync_dir(posts) == 0 ? 1 : -1;
	else
		r = errno == EEXIST ? 0 : -1;
	spool_tmp_discard(&t);
	return r;
}

/* spool_digest_slurp - a whole file into *text (malloc'd, NUL-ended) */
int
spool_digest_slurp(const char *path, char **text, size_t *len)
{
	struct stat sb;
	ssize_t k;
	size_t got = 0;
	int fd, e;

	*text = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &sb) == -1 ||
	    (*text = malloc((size_t)sb.st_size + 1)) == NULL) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	while (got < (size_t)sb.st_size &&
	       (k = read(fd, *text + got, (size_t)sb.st_size - got)) > 0)
		got += (size_t)k;
	e = errno;
	close(fd);
	if (got != (size_t)sb.st_size) {
		free(*text);
		*text = NULL;
		errno = e ? e : EIO;
		return -1;
	}
	(*text)[got] = '\0';
	*len = got;
	return 0;
}

/* digest_entry_cmp - by collection time, then name */
static int
digest_entry_cmp(const void *a, const void *b)
{
	const struct spool_digest_entry *x = a, *y = b;

	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns < y->mtime_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* digest_entry_add - one entry of posts/ into *v */
static int
digest_entry_add(int dfd, const char *name, struct spool_digest_entry **v,
    size_t *n, size_t *cap)
{
	struct spool_digest_entry *nv;
	struct stat sb;

	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(sb.st_mode) || strlen(name) > SPOOL_DIGEST_ENTRY_MAX)
		return 0;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((nv = reallocarray(*v, *cap, sizeof(**v))) == NULL)
			return -1;
		*v = nv;
	}
	(void)strlcpy((*v)[*n].name, name, sizeof((*v)[*n].name)); /* fits */
	(*v)[*n].size = sb.st_size;
	(*v)[*n].mtime_ns =
	    (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
	(*n)++;
	return 0;
}

/* spool_digest_entries - the posts collected, oldest first (*v
 * malloc'd); none when the list has no collection; 0 or -1 */
int
spool_digest_entries(const char *dir, struct spool_digest_entry **v, size_t *n)
{
	char posts[PATH_MAX];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;
	int r = 0;

	*v = NULL;
	*n = 0;
	if (digest_sub(posts, sizeof(posts), dir, "posts") == -1)
		return -1;
	if ((d = opendir(posts)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (r == 0 && (errno = 0, de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			r = digest_entry_add(dirfd(d), de->d_name, v, n, &cap);
	if (r == 0 && errno != 0)
		r = -1;
	closedir(d);
	if (r == -1) {
		free(*v);
		*v = NULL;
		*n = 0;
	} else if (*n > 1)
		qsort(*v, *n, sizeof(**v), digest_entry_cmp);
	return r;
}

/* spool_digest_read - the text of posts/<entry> (*text malloc'd) */
int
spool_digest_read(const char *dir, const char *entry, char **text, size_t *len)
{
	char path[PATH_MAX], posts[PATH_MAX];

	if (digest_sub(posts, sizeof(posts), dir, "posts") == -1 ||
	    digest_sub(path, sizeof(path), posts, entry) == -1)
		return -1;
	return spool_digest_slurp(path, text, len);
}

/* spool_digest_entry_tiers - the tiers an entry's name carries */
int
spool_digest_entry_tiers(const char *entry, int *dprio, int *lprio)
{
	if (sscanf(entry, "%2d-%2d-", dprio, lprio) != 2 || *dprio < 0 ||
	    *lprio < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* digest_flock - <dir>/<name> opened (made when missing) and flock()ed
 * with op: with LOCK_NB, -2 when another holds it; else waiting as
 * lockedit_flock does; its descriptor, or -1 */
static int
digest_flock(const char *dir, const char *name, int op)
{
	char path[PATH_MAX];
	int fd;

	if (digest_sub(path, sizeof(path), dir, name) == -1)
		return -1;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, SPOOL_FILE_MODE)) ==
	    -1)
		return -1;
	if (op & LOCK_NB ? flock(fd, op) == -1 : lockedit_flock(fd, op) == -1) {
		close(fd);
		return op & LOCK_NB && errno == EWOULDBLOCK ? -2 : -1;
	}
	return fd;
}

/* spool_digest_lock - the list's digest lock, taken without waiting:
 * its descriptor (close it to let go), -2 when another runner holds it,
 * -1 on error */
int
spool_digest_lock(const char *dir)
{
	return digest_flock(dir, "lock", LOCK_EX | LOCK_NB);
}

/* spool_digest_lock_wait - the list's digest lock, waiting for it */
int
spool_digest_lock_wait(const char *dir)
{
	return digest_flock(dir, "lock", LOCK_EX);
}

/* spool_digest_modes - the list's modes lock, shared or exclusive */
int
spool_digest_modes(const char *dir, int exclusive)
{
	return digest_flock(dir, "modes.lock", exclusive ? LOCK_EX : LOCK_SH);
}

/* spool_digest_counter_read - <dir>/<file> ("counter", or the issue's
 * "issue/counter") into c; a missing file is issue 0 of volume 1; 0, 1
 * when there was no file, or -1 */
int
spool_digest_counter_read(
    const char *dir, const char *file, struct spool_digest_counter *c)
{
	char path[PATH_MAX], *text = NULL;
	size_t len;
	int k;

	memset(c, 0, sizeof(*c));
	c->volume = 1;
	c->dprio = c->lprio = SPOOL_PRIO_DEFAULT;
	if (digest_sub(path, sizeof(path), dir, file) == -1)
		return -1;
	if (spool_digest_slurp(path, &text, &len) == -1)
		return errno == ENOENT ? 1 : -1;
	k = sscanf(text,
	    "mjq-digest 1\nvolume %lld\nissue %lld\nyear %lld\nlast %lld\n"
	    "dprio %d\nlprio %d\n",
	    &c->volume, &c->issue, &c->year, &c->last, &c->dprio, &c->lprio);
	free(text);
	if (k != 6) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* spool_digest_lists - fn(arg, domain, list) for each list that has a
 * digest directory; fn's -1 stops; 0 or -1 */
int
spool_digest_lists(const char *spool,
    int (*fn)(void *arg, const char *domain, const char *list), void *arg)
{
	return spool_state_lists(spool, SPOOL_DIGEST, fn, arg);
}

/* spool_state_lists - fn(arg, domain, list) for each list that has a
 * directory under state/<sub>/ (digest, archive); fn's -1 stops; 0 or
 * -1 */
int
spool_state_lists(const char *spool, const char *sub,
    int (*fn)(void *arg, const char *domain, const char *list), void *arg)
{
	char top[PATH_MAX], ddir[PATH_MAX];
	struct dirent *dd, *ld;
	DIR *d, *l;
	int r = 0;

	if (snprintf(top, sizeof(top), "%s/%s/%s", spool, SPOOL_STATE, sub) >=
	    (int)sizeof(top))
		return -1;
	if ((d = opendir(top)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (r == 0 && (dd = readdir(d)) != NULL) {
		if (dd->d_name[0] == '.' ||
		    digest_sub(ddir, sizeof(ddir), top, dd->d_name) == -1 ||
		    (l = opendir(ddir)) == NULL)
			continue;
		while (r == 0 && (ld = readdir(l)) != NULL)
			if (ld->d_name[0] != '.' &&
			    name_check_list(ld->d_name) == NULL &&
			    name_check_domain(dd->d_name) == NULL)
				r = fn(arg, dd->d_name, ld->d_name);
		closedir(l);
	}
	closedir(d);
	return r;
}
