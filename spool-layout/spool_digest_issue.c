/*
 * spool_digest_issue.c - a digest issue, made and sent so that a crash
 * at any point loses no post and sends no issue twice (spool-layout/
 * README, "Digests"):
 *
 *   D1. issue.tmp/ is written whole (the new counter, the names of the
 *       posts it takes, and per kind of reader the message and its state
 *       file), each file fsync'd, then renamed to issue/: the issue is
 *       made.  Its number is taken from here on.
 *   D2. the posts it took are unlinked from posts/.
 *   D3. per kind: the state file is linked into QUEUE/ (its lock held),
 *       then the message is renamed into QUEUE/ (renameat2, never over
 *       another): the one step that sends it; the staged state is
 *       unlinked.  A message still in issue/ is not sent yet; one gone
 *       from it is in QUEUE/.
 *   D4. issue/counter is renamed over counter, then issue/ is emptied
 *       and removed.
 *
 * spool_digest_finish runs D2-D4, and runs them again, in order, on an
 * issue/ a crash left behind: each step is done or redone from what it
 * finds.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "spool_commit.h"
#include "spool_digest.h"
#include "spool_finish.h"
#include "spool_path.h"

static const char *const digest_kinds[] = {"digest", "digest-plain"};
#define NKINDS (sizeof(digest_kinds) / sizeof(digest_kinds[0]))

/* issue_path - <dir>/<a>[/<b>] */
static int
issue_path(char *buf, size_t len, const char *dir, const char *a, const char *b)
{
	int r = b ? snprintf(buf, len, "%s/%s/%s", dir, a, b)
		  : snprintf(buf, len, "%s/%s", dir, a);

	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* issue_clear - every file of the directory path unlinked, then the
 * directory; a missing one is cleared */
static int
issue_clear(const char *path)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	if ((d = opendir(path)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    unlinkat(dirfd(d), de->d_name, 0) == -1 && errno != ENOENT)
			r = -1;
	closedir(d);
	if (r == 0 && rmdir(path) == -1 && errno != ENOENT)
		r = -1;
	return r;
}

/* issue_put - a new file dir/name holding buf, fsync'd */
static int
issue_put(const char *dir, const char *name, const char *buf, size_t len)
{
	char path[PATH_MAX];
	int fd;

	if (issue_path(path, sizeof(path), dir, name, NULL) == -1)
		return -1;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		 SPOOL_FILE_MODE)) == -1)
		return -1;
	if (io_write_all(fd, buf, len) == -1) {
		close(fd);
		return -1;
	}
	return io_fsync_close(fd);
}

/* issue_counter_text - the counter's file */
static int
issue_counter_text(const struct spool_digest_counter *c, char *buf, size_t len)
{
	int r = snprintf(buf, len,
	    "mjq-digest 1\nvolume %lld\nissue %lld\nyear %lld\nlast %lld\n"
	    "dprio %d\nlprio %d\n",
	    c->volume, c->issue, c->year, c->last, c->dprio, c->lprio);

	return r < 0 || (size_t)r >= len ? -1 : r;
}

/* issue_entries_text - the names of the posts an issue takes */
static int
issue_entries_put(const char *tmp, const struct spool_digest_entry *e, size_t n)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;
	int r;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(fp, "%s\n", e[i].name);
	if (fclose(fp) == EOF) {
		free(buf);
		return -1;
	}
	r = issue_put(tmp, "entries", buf, len);
	free(buf);
	return r;
}

/* spool_digest_pending - an issue made and not yet all sent (issue/) */
int
spool_digest_pending(const char *dir)
{
	char path[PATH_MAX];
	struct stat sb;

	if (issue_path(path, sizeof(path), dir, "issue", NULL) == -1)
		return -1;
	if (stat(path, &sb) == -1)
		return errno == ENOENT ? 0 : -1;
	return 1;
}

/* spool_digest_prepare - D1: issue c, taking the n posts of e, with one
 * message per kind of k (a kind without readers has none) */
int
spool_digest_prepare(const char *dir, const struct spool_digest_counter *c,
    const struct spool_digest_entry *e, size_t n,
    const struct spool_digest_kind *k, size_t nk)
{
	char tmp[PATH_MAX], fin[PATH_MAX], text[512], sname[64];
	size_t i;
	int len;

	if (issue_path(tmp, sizeof(tmp), dir, "issue.tmp", NULL) == -1 ||
	    issue_path(fin, sizeof(fin), dir, "issue", NULL) == -1 ||
	    issue_clear(tmp) == -1 || mkdir(tmp, SPOOL_DIR_MODE) == -1 ||
	    (len = issue_counter_text(c, text, sizeof(text))) == -1 ||
	    issue_put(tmp, "counter", text, (size_t)len) == -1 ||
	    issue_entries_put(tmp, e, n) == -1)
		return -1;
	for (i = 0; i < nk; i++) {
		snprintf(sname, sizeof(sname), "%s.state", k[i].kind);
		if (issue_put(tmp, sname, k[i].state, k[i].statelen) == -1 ||
		    issue_put(tmp, k[i].kind, k[i].msg, k[i].msglen) == -1)
			return -1;
	}
	if (spool_fsync_dir(tmp) == -1 || rename(tmp, fin) == -1)
		return -1;
	return spool_fsync_dir(dir);
}

/* issue_consume - D2: the posts issue/ took leave posts/ */
static int
issue_consume(const char *dir)
{
	char path[PATH_MAX], posts[PATH_MAX], *text, *line, *save = NULL;
	size_t len;
	int r = 0;

	if (issue_path(path, sizeof(path), dir, "issue", "entries") == -1 ||
	    issue_path(posts, sizeof(posts), dir, "posts", NULL) == -1)
		return -1;
	if (spool_digest_slurp(path, &text, &len) == -1)
		return errno == ENOENT ? 0 : -1; /* D4 had begun */
	for (line = strtok_r(text, "\n", &save); line != NULL && r == 0;
	     line = strtok_r(NULL, "\n", &save))
		if (issue_path(path, sizeof(path), posts, line, NULL) == -1 ||
		    (unlink(path) == -1 && errno != ENOENT))
			r = -1;
	free(text);
	if (r == 0 && spool_fsync_dir(posts) == -1 && errno != ENOENT)
		r = -1;
	return r;
}

/* issue_link - D3 for one name: the staged state linked as .<name>, its
 * lock held, then the staged message renamed to <name>; 1 sent, 0 the
 * name is taken (try the next), -1 error */
static int
issue_link(
    const char *spool, const char *state, const char *msg, const char *final)
{
	char spath[PATH_MAX];
	int r;

	if (spool_state_path(spath, sizeof(spath), final) == -1 ||
	    (r = spool_name_free(spool, final)) == -1)
		return -1;
	if (r == 0)
		return 0;
	if (link(state, spath) == -1)
		return errno == EEXIST ? 0 : -1;
	if (renameat2(AT_FDCWD, msg, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
		return 1;
	r = errno;
	(void)unlink(spath); /* else an orphan, removed by a walk */
	errno = r;
	return r == EEXIST ? 0 : -1;
}

/* issue_send - D3 for one kind still staged in issue/ */
static int
issue_send(const char *spool, const char *dir, const char *qdir,
    const char *list, const char *kind)
{
	char msg[PATH_MAX], state[PATH_MAX], final[PATH_MAX],
	    base[SPOOL_NAME_MAX + 1], sname[64];
	struct spool_name name;
	int hold, r = -1, k;

	snprintf(sname, sizeof(sname), "%s.state", kind);
	if (issue_path(msg, sizeof(msg), dir, "issue", kind) == -1 ||
	    issue_path(state, sizeof(state), dir, "issue", sname) == -1)
		return -1;
	if ((hold = spool_orphan_hold(state)) == -1)
		return -1;
	if (spool_mkdirs(spool, qdir) == -1 ||
	    spool_name_init(&name, time(NULL), getpid(), list, NULL, kind) ==
		-1)
		goto done;
	for (;;) {
		if (spool_name_format(&name, base, sizeof(base)) == -1 ||
		    issue_path(final, sizeof(final), qdir, base, NULL) == -1 ||
		    (k = issue_link(spool, state, msg, final)) == -1)
			goto done;
		if (k == 1)
			break;
		if (spool_name_next(&name) == -1)
			goto done;
	}
	if (spool_fsync_dir(qdir) == 0 && unlink(state) == 0)
		r = 0;
done:
	(void)close(hold); /* read only: the lock goes with it */
	return r;
}

/* issue_staged - kind's message is still in issue/ (not yet sent) */
static int
issue_staged(const char *dir, const char *kind)
{
	char path[PATH_MAX];
	struct stat sb;

	if (issue_path(path, sizeof(path), dir, "issue", kind) == -1)
		return -1;
	if (stat(path, &sb) == -1)
		return errno == ENOENT ? 0 : -1;
	return 1;
}

/* issue_close - D4: the new counter in force, issue/ removed */
static int
issue_close(const char *dir)
{
	char from[PATH_MAX], to[PATH_MAX], idir[PATH_MAX];

	if (issue_path(from, sizeof(from), dir, "issue", "counter") == -1 ||
	    issue_path(to, sizeof(to), dir, "counter", NULL) == -1 ||
	    issue_path(idir, sizeof(idir), dir, "issue", NULL) == -1)
		return -1;
	if (rename(from, to) == 0) {
		if (spool_fsync_dir(dir) == -1)
			return -1;
	} else if (errno != ENOENT)
		return -1;
	if (issue_clear(idir) == -1)
		return -1;
	return spool_fsync_dir(dir);
}

/* spool_digest_finish - D2-D4 for the issue/ there is; *sent counts the
 * messages this call put into QUEUE/; 0 or -1 (the next call goes on) */
int
spool_digest_finish(const char *spool, const char *dir, const char *domain,
    const char *list, int *sent)
{
	struct spool_digest_counter c;
	char qdir[PATH_MAX], idir[PATH_MAX];
	size_t i;
	int k;

	*sent = 0;
	if (issue_consume(dir) == -1)
		return -1;
	if (issue_path(idir, sizeof(idir), dir, "issue", NULL) == -1 ||
	    (k = spool_digest_counter_read(idir, "counter", &c)) == -1)
		return -1;
	if (spool_queue_dir(qdir, sizeof(qdir), spool, SPOOL_QUEUE, c.dprio,
		domain, c.lprio, SPOOL_FN_OWNER) == -1)
		return -1;
	for (i = 0; i < NKINDS && k == 0; i++) {
		if ((k = issue_staged(dir, digest_kinds[i])) == 1) {
			if (issue_send(
				spool, dir, qdir, list, digest_kinds[i]) == -1)
				return -1;
			(*sent)++;
		}
		k = k == -1 ? -1 : 0;
	}
	if (k == -1)
		return -1;
	return issue_close(dir);
}
