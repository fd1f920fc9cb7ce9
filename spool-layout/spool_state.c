/*
 * spool_state.c - a message's delivery state file, .<name> beside it:
 * open, update in place, close.
 *
 * The file is written once, whole (spool_state_write.c).  Opening checks
 * every line, a buffer at a time (spool_state_read.c), and keeps only the
 * header and the number of recipients in each status, so a state file
 * costs the same memory whatever its size.  After that only fixed-width
 * fields change, in place: a status word is
 * always SPOOL_STATUS_WIDTH bytes and a counter always the same number of
 * digits, so a pwrite can never shift the lines after it.  The text is
 * the whole truth about a message's progress; nothing is kept elsewhere.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnv.h"
#include "spool_path.h"
#include "spool_state.h"
#include "spool_walk.h"

/* spool_msgid_of - the identity of the message whose text this is */
void
spool_msgid_of(struct spool_msgid *id, const void *text, size_t len)
{
	id->size = (long long)len;
	id->hash = fnv1a(FNV1A_BASIS, text, len);
}

/* spool_state_belongs - 1 when the state file is the one of the message
 * with this identity; 0 when it is an orphan left by an earlier message
 * of the same name.  A version 1 file (written before the identity was)
 * is believed: mj_enqueue no longer takes a name whose state file exists
 * and the runners remove orphans, so a version 1 file beside a message
 * is that message's own (spool-layout/README, "Upgrading"). */
int
spool_state_belongs(const struct spool_state *st, const struct spool_msgid *id)
{
	if (st->version == 1)
		return 1;
	return st->msgid.size == id->size && st->msgid.hash == id->hash;
}

/* spool_state_clean - an error text fit for its one fixed-width line */
static void
spool_state_clean(char *dst, const char *src)
{
	size_t i;

	for (i = 0; i < SPOOL_STATE_ERROR_MAX && src[i] != '\0'; i++)
		dst[i] = (src[i] < 0x20 || src[i] == 0x7f) ? ' ' : src[i];
	dst[i] = '\0';
}

/* spool_state_key - the value after "key " on a header line, or NULL */
static char *
spool_state_key(char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) != 0 || line[n] != ' ')
		return NULL;
	return line + n + 1;
}

/* spool_state_angle - copy the address inside <...> */
static int
spool_state_angle(const char *v, char *out, size_t outlen)
{
	size_t n = strlen(v);

	if (n < 2 || v[0] != '<' || v[n - 1] != '>' || n - 2 >= outlen)
		return -1;
	memcpy(out, v + 1, n - 2);
	out[n - 2] = '\0';
	return 0;
}

/* spool_state_num - a decimal number with optional leading spaces */
static int
spool_state_num(const char *v, long long *out)
{
	char *end;

	while (*v == ' ')
		v++;
	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	*out = strtoll(v, &end, 10);
	return errno == 0 && *end == '\0' ? 0 : -1;
}

/* spool_state_msgid - "<size> <16 hex digits>", the message line */
static int
spool_state_msgid(const char *v, struct spool_msgid *id)
{
	const char *sp = strchr(v, ' ');
	char num[24];
	long long n;
	size_t i;

	if (sp == NULL || sp == v || (size_t)(sp - v) >= sizeof(num) ||
	    strlen(sp + 1) != 16)
		return -1;
	memcpy(num, v, (size_t)(sp - v));
	num[sp - v] = '\0';
	if (num[0] == ' ' || spool_state_num(num, &n) == -1)
		return -1;
	for (i = 1; i <= 16; i++)
		if (!isxdigit((unsigned char)sp[i]))
			return -1;
	id->size = n;
	id->hash = strtoull(sp + 1, NULL, 16);
	return 0;
}

/* spool_state_header - parse one header line; -1 when it is broken */
static int
spool_state_header(struct spool_state *st, char *line, off_t off)
{
	long long v;
	char *p;

	if ((p = spool_state_key(line, "kind")) != NULL)
		return strlcpy(st->kind, p, sizeof(st->kind)) < sizeof(st->kind)
			   ? 0
			   : -1;
	if ((p = spool_state_key(line, "sender")) != NULL)
		return spool_state_angle(p, st->sender, sizeof(st->sender));
	if ((p = spool_state_key(line, "from")) != NULL)
		return spool_state_angle(p, st->from, sizeof(st->from));
	if ((p = spool_state_key(line, "error")) != NULL) {
		size_t n = strlen(p);
		if (n != SPOOL_STATE_ERROR_MAX)
			return -1;
		while (n > 0 && p[n - 1] == ' ')
			n--;
		memcpy(st->error, p, n);
		st->error[n] = '\0';
		st->off_error = off + (p - line);
		return 0;
	}
	if ((p = spool_state_key(line, "message")) != NULL)
		return st->version == 2 && st->msgid.size == -1
			   ? spool_state_msgid(p, &st->msgid)
			   : -1;
	if ((p = spool_state_key(line, "arrival")) != NULL)
		return spool_state_num(p, &st->arrival);
	if ((p = spool_state_key(line, "verp")) != NULL) {
		if (spool_state_num(p, &v) == -1)
			return -1;
		st->verp = v != 0;
		return 0;
	}
	if ((p = spool_state_key(line, "tries")) != NULL ||
	    (p = spool_state_key(line, "crashes")) != NULL) {
		if (strlen(p) != 6 || spool_state_num(p, &v) == -1 ||
		    v > 999999)
			return -1;
		if (line[0] == 't') {
			st->tries = (int)v;
			st->off_tries = off + (p - line);
		} else {
			st->crashes = (int)v;
			st->off_crashes = off + (p - line);
		}
		return 0;
	}
	if ((p = spool_state_key(line, "crash_settled")) != NULL) {
		if (strlen(p) != SPOOL_COUNT_WIDTH ||
		    spool_state_num(p, &v) == -1)
			return -1;
		st->crash_settled = (size_t)v;
		st->off_crash_settled = off + (p - line);
		return 0;
	}
	if ((p = spool_state_key(line, "active")) != NULL) {
		/* 1 wide in files written before the holder's pid was */
		if ((strlen(p) != 1 && strlen(p) != SPOOL_ACTIVE_WIDTH) ||
		    spool_state_num(p, &v) == -1 || v > INT_MAX)
			return -1;
		st->active = (int)v;
		st->active_width = (int)strlen(p);
		st->off_active = off + (p - line);
		return 0;
	}
	return -1;
}

/* spool_state_scan - check the whole file a line at a time: the header
 * into st, then every recipient line, counted by status; why says what
 * is broken */
static int
spool_state_scan(struct spool_state *st, char *why, size_t wl)
{
	struct spool_state_reader *r;
	enum spool_rcpt_status s;
	char *line, *addr, *v;
	long long n = -1;
	size_t lineno = 0, i = 0;
	off_t off, size = lseek(st->fd, 0, SEEK_END);
	int k, t = 0, ok = -1;

	if ((r = malloc(sizeof(*r))) == NULL) {
		snprintf(why, wl, "out of memory");
		return -1;
	}
	spool_state_read_start(r, st->fd, 0);
	st->off_tries = st->off_crashes = st->off_active = st->off_error = -1;
	st->off_crash_settled = -1;
	st->msgid.size = -1;
	while ((k = spool_state_read_line(r, &line, &off)) == 1) {
		lineno++;
		if (lineno == 1) {
			st->version = strcmp(line, SPOOL_STATE_MAGIC) == 0 ? 2
				      : strcmp(line, SPOOL_STATE_MAGIC_1) == 0
					  ? 1
					  : 0;
			if (st->version == 0) {
				snprintf(why, wl, "not a state file");
				goto done;
			}
		} else if (n < 0 && (v = spool_state_key(line, "recipients"))) {
			if (spool_state_num(v, &n) == -1 || n > size / 2) {
				snprintf(
				    why, wl, "line %zu: bad count", lineno);
				goto done;
			}
			st->rcpt_start = r->next - (off_t)(r->len - r->pos);
		} else if (n < 0 ? spool_state_header(st, line, off) == -1
				 : (i >= (size_t)n ||
				       (t = spool_state_parse_rcpt(
					    line, &s, &addr)) == -1)) {
			snprintf(why, wl, "line %zu: malformed", lineno);
			goto done;
		} else if (n >= 0) {
			st->count[s]++;
			st->torn += t == 1;
			i++;
		}
	}
	if (k == -1) {
		if (errno == EINVAL)
			snprintf(why, wl, "line %zu: %s", lineno + 1,
			    r->eof ? "truncated" : "too long");
		else
			snprintf(why, wl, "%s", strerror(errno));
		goto done;
	}
	if (n < 0 || i != (size_t)n || st->off_tries < 0 ||
	    st->off_crashes < 0 || st->off_active < 0 || st->off_error < 0 ||
	    (st->version == 2 && st->msgid.size < 0)) {
		snprintf(why, wl, "incomplete");
		goto done;
	}
	st->nrcpt = (size_t)n;
	ok = 0;
done:
	if (ok == -1 && k != -1)
		errno = EINVAL;
	free(r);
	return ok;
}

/* spool_state_open - read and check the state file of the message at
 * msgpath; -1 with errno ENOENT when there is none, or EINVAL with why
 * when it is damaged.  Only the header and the counts stay in core. */
int
spool_state_open(
    struct spool_state *st, const char *msgpath, char *why, size_t whylen)
{
	int e;

	memset(st, 0, sizeof(*st));
	st->fd = -1;
	if (spool_state_path(st->path, sizeof(st->path), msgpath) == -1)
		return -1;
	if ((st->fd = open(st->path, O_RDWR | O_CLOEXEC)) == -1) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (spool_state_scan(st, why, whylen) == -1) {
		e = errno;
		spool_state_close(st);
		errno = e;
		return -1;
	}
	return 0;
}

/* spool_state_todo - recipients still to be delivered */
size_t
spool_state_todo(const struct spool_state *st)
{
	return st->count[SPOOL_RCPT_PENDING] + st->count[SPOOL_RCPT_DEFERRED] +
	       st->count[SPOOL_RCPT_FAILED];
}

/* spool_state_put - pwrite a field, counting it for the next sync */
static int
spool_state_put(struct spool_state *st, off_t off, const char *text, size_t n)
{
	if (pwrite(st->fd, text, n, off) != (ssize_t)n) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	st->unsynced++;
	return 0;
}

/* spool_state_set_rcpt - a recipient's new status, in place, at the
 * offset a reader gave; from is its status as the caller knows it */
int
spool_state_set_rcpt(struct spool_state *st, off_t off,
    enum spool_rcpt_status from, enum spool_rcpt_status to)
{
	char word[SPOOL_STATUS_WIDTH + 1];

	if (from == to)
		return 0;
	snprintf(word, sizeof(word), "%-*s", SPOOL_STATUS_WIDTH,
	    spool_state_word(to));
	if (spool_state_put(st, off, word, SPOOL_STATUS_WIDTH) == -1)
		return -1;
	st->count[from]--;
	st->count[to]++;
	return 0;
}

/* spool_state_unfail - spool_state_each's callback: failed to deferred */
static int
spool_state_unfail(void *arg, const struct spool_rcpt *rc)
{
	return spool_state_set_rcpt(
	    arg, rc->off, rc->status, SPOOL_RCPT_DEFERRED);
}

/* spool_state_recover - a runner died between a bounce decision and its
 * bounce: failed recipients are deferred again (they are retried, and
 * bounce again if they still fail); returns how many, or -1 */
int
spool_state_recover(struct spool_state *st)
{
	int n;

	if (st->count[SPOOL_RCPT_FAILED] == 0)
		return 0;
	if ((n = spool_state_each(st, SPOOL_RCPT_BIT(SPOOL_RCPT_FAILED),
		 spool_state_unfail, st)) == -1 ||
	    spool_state_sync(st) == -1)
		return -1;
	return n;
}

/* spool_state_set_counts - tries, crashes and the holder (active: its
 * pid, 0 for none; an old file's one-digit field says only 1 or 0) */
int
spool_state_set_counts(
    struct spool_state *st, int tries, int crashes, int active)
{
	char v[16];

	if (tries > 999999)
		tries = 999999;
	if (crashes > 999999)
		crashes = 999999;
	if (tries != st->tries) {
		snprintf(v, sizeof(v), "%6d", tries);
		if (spool_state_put(st, st->off_tries, v, 6) == -1)
			return -1;
		st->tries = tries;
	}
	if (crashes != st->crashes) {
		snprintf(v, sizeof(v), "%6d", crashes);
		if (spool_state_put(st, st->off_crashes, v, 6) == -1)
			return -1;
		st->crashes = crashes;
	}
	if (active < 0)
		active = 0;
	if (st->active_width == 1 && active != 0)
		active = 1;
	if (active != st->active) {
		snprintf(v, sizeof(v), "%*d", st->active_width, active);
		if (spool_state_put(
			st, st->off_active, v, (size_t)st->active_width) == -1)
			return -1;
		st->active = active;
	}
	return 0;
}

/* spool_state_settled - recipients whose fate is final: delivered or
 * bounced (what "progress" means when a crash is weighed) */
size_t
spool_state_settled(const struct spool_state *st)
{
	return st->count[SPOOL_RCPT_DELIVERED] + st->count[SPOOL_RCPT_BOUNCED];
}

/* spool_state_set_crash_settled - the settled count at a counted crash;
 * kept in core only for a file older than the field */
int
spool_state_set_crash_settled(struct spool_state *st, size_t settled)
{
	char v[32];

	if (settled != st->crash_settled && st->off_crash_settled >= 0) {
		snprintf(v, sizeof(v), "%*zu", SPOOL_COUNT_WIDTH, settled);
		if (spool_state_put(
			st, st->off_crash_settled, v, SPOOL_COUNT_WIDTH) == -1)
			return -1;
	}
	st->crash_settled = settled;
	return 0;
}

/* spool_state_set_error - the last error, cut and padded to its width */
int
spool_state_set_error(struct spool_state *st, const char *error)
{
	char clean[SPOOL_STATE_ERROR_MAX + 1], field[SPOOL_STATE_ERROR_MAX + 1];

	spool_state_clean(clean, error);
	if (strcmp(clean, st->error) == 0)
		return 0;
	snprintf(field, sizeof(field), "%-*s", SPOOL_STATE_ERROR_MAX, clean);
	if (spool_state_put(st, st->off_error, field, SPOOL_STATE_ERROR_MAX) ==
	    -1)
		return -1;
	(void)strlcpy(st->error, clean, sizeof(st->error));
	return 0;
}

/* spool_state_sync - make the updates so far durable (one fdatasync for
 * the whole group) */
int
spool_state_sync(struct spool_state *st)
{
	if (st->unsynced == 0)
		return 0;
	if (fdatasync(st->fd) == -1)
		return -1;
	st->unsynced = 0;
	return 0;
}

/* spool_state_synced - n updates, counted when the file was handed to
 * another thread's fdatasync, made durable there (updates since stay
 * to be synced) */
void
spool_state_synced(struct spool_state *st, int n)
{
	st->unsynced = st->unsynced > n ? st->unsynced - n : 0;
}

/* spool_state_unsynced - the updates since the last sync */
int
spool_state_unsynced(const struct spool_state *st)
{
	return st->unsynced;
}

/* spool_state_close - free; unsynced updates stay in the page cache */
void
spool_state_close(struct spool_state *st)
{
	if (st->fd != -1)
		close(st->fd);
	st->fd = -1;
	st->nrcpt = 0;
	memset(st->count, 0, sizeof(st->count));
}

/* spool_state_set_next - the message's next try, as its mtime */
int
spool_state_set_next(int msgfd, time_t when)
{
	struct timespec ts[2];

	ts[0].tv_sec = when;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	return futimens(msgfd, ts);
}

/* A .<name>.try file: "<counted deaths, 6 columns> <pid, 10 columns>",
 * the pid of the runner at the first processing now (0: none), then on a
 * second line the reason the last attempt failed, if one did.  A file of
 * one number ("N", with or without a reason) is from before the pid was
 * kept: N counts every attempt in it that died. */
struct spool_try {
	int counted;
	long pid;
	int has_pid;
	char why[SPOOL_STATE_ERROR_MAX + 1];
};

/* spool_state_try_read - a .try file open on fd (zeros and "" when
 * empty); -1 on a read error */
static int
spool_state_try_read(int fd, struct spool_try *t)
{
	char buf[SPOOL_STATE_ERROR_MAX + 40], *nl, *end;
	ssize_t r;
	long n = 0, pid = 0;

	memset(t, 0, sizeof(*t));
	if ((r = pread(fd, buf, sizeof(buf) - 1, 0)) == -1)
		return -1;
	buf[r] = '\0';
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	t->has_pid = sscanf(buf, "%ld %ld", &n, &pid) == 2;
	t->counted = n < 0 || n > 999999 ? 0 : (int)n;
	t->pid = pid < 0 || pid > INT_MAX ? 0 : pid;
	if (nl != NULL) {
		if ((end = strchr(nl + 1, '\n')) != NULL)
			*end = '\0';
		(void)strlcpy(t->why, nl + 1, sizeof(t->why)); /* cut: one */
	}
	return 0;
}

/* spool_state_try_write - the .try file says t */
static int
spool_state_try_write(int fd, const struct spool_try *t)
{
	char buf[SPOOL_STATE_ERROR_MAX + 40];
	int len;

	len = snprintf(buf, sizeof(buf), "%6d %10ld\n%s%s", t->counted, t->pid,
	    t->why, t->why[0] ? "\n" : "");
	if (len < 0 || (size_t)len >= sizeof(buf))
		len = (int)sizeof(buf) - 1;
	if (pwrite(fd, buf, (size_t)len, 0) != len ||
	    ftruncate(fd, (off_t)len) == -1)
		return -1;
	return 0;
}

/* spool_state_try_update - read .<name>.try (made if missing), let fn
 * change it, write it back */
static int
spool_state_try_update(const char *msgpath,
    void (*fn)(struct spool_try *, const void *), const void *arg,
    struct spool_try *was)
{
	char path[PATH_MAX];
	struct spool_try t;
	int fd;

	if (spool_try_path(path, sizeof(path), msgpath) == -1)
		return -1;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		 SPOOL_FILE_MODE)) == -1)
		return -1;
	if (spool_state_try_read(fd, &t) == -1) {
		close(fd);
		return -1;
	}
	if (was != NULL)
		*was = t;
	fn(&t, arg);
	if (spool_state_try_write(fd, &t) == -1) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* spool_state_try_begin - spool_state_try_update's: this runner at it */
static void
spool_state_try_begin(struct spool_try *t, const void *arg)
{
	t->pid = *(const pid_t *)arg;
}

/* spool_state_attempt - a first processing of a message that has no
 * state file yet begins, in .<name>.try: *counted gets the deaths
 * counted against it so far and *last the runner of the attempt before,
 * which never finished (0 if unknown); returns 1 when there was such an
 * attempt, 0 when not, -1 on error.  No fsync: the file is about runner
 * deaths, which the page cache survives.  The reason a previous attempt
 * failed, if any, stays in the file. */
int
spool_state_attempt(const char *msgpath, pid_t self, int *counted, pid_t *last)
{
	struct spool_try was;

	*counted = 0;
	*last = 0;
	if (spool_state_try_update(
		msgpath, spool_state_try_begin, &self, &was) == -1)
		return -1;
	*counted = was.counted;
	*last = (pid_t)was.pid;
	return was.has_pid && was.pid > 0;
}

/* spool_state_try_count - spool_state_try_update's: the count */
static void
spool_state_try_count(struct spool_try *t, const void *arg)
{
	t->counted = *(const int *)arg;
}

/* spool_state_attempt_count - the deaths counted after weighing them */
int
spool_state_attempt_count(const char *msgpath, int counted, pid_t self)
{
	(void)self; /* spool_state_attempt wrote it */
	return spool_state_try_update(
	    msgpath, spool_state_try_count, &counted, NULL);
}

/* spool_state_attempt_done - the first processing ended without a crash */
int
spool_state_attempt_done(const char *msgpath)
{
	char path[PATH_MAX];

	if (spool_try_path(path, sizeof(path), msgpath) == -1)
		return -1;
	return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
}

/* spool_state_try_fail - spool_state_try_update's: no runner at it any
 * more, and why */
static void
spool_state_try_fail(struct spool_try *t, const void *arg)
{
	t->pid = 0;
	(void)strlcpy(t->why, arg, sizeof(t->why)); /* cut: one */
}

/* spool_state_attempt_failed - the first processing ended without a
 * crash but failed, to be tried again: .<name>.try keeps the deaths
 * counted, no runner at it, and the reason, for mj_queuerun -l */
int
spool_state_attempt_failed(const char *msgpath, const char *why)
{
	return spool_state_try_update(msgpath, spool_state_try_fail, why, NULL);
}

/* spool_state_attempt_error - why the last first processing of a message
 * without a state file failed; "" when none is known */
void
spool_state_attempt_error(const char *msgpath, char *why, size_t whylen)
{
	char path[PATH_MAX];
	struct spool_try t;
	int fd;

	why[0] = '\0';
	if (spool_try_path(path, sizeof(path), msgpath) == -1 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return;
	if (spool_state_try_read(fd, &t) == 0)
		(void)strlcpy(why, t.why, whylen); /* cut: the caller's size */
	(void)close(fd);
}
