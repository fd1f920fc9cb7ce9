/*
 * spool_dest.c - the destination table shared by every runner,
 * $spool/state/destinations (see spool_dest.h and spool-layout/README).
 *
 * Why locks rather than counters for busy slots: a counter in the file
 * is raised by a runner that may die before it lowers it again, and
 * nothing could tell a leaked count from a real one.  A byte-range lock
 * is owned by the open file description of the runner that took it; the
 * kernel drops it when the runner dies, whatever the signal, so "busy"
 * is the number of locks held, which cannot leak.  OFD locks (not POSIX
 * process locks) because closing any descriptor of the file in the
 * process would drop POSIX locks, and because a thread-safe owner is
 * what a threaded runner needs.  The holder[] pids are hints written
 * beside each lock so that counting is a few memory reads; a hint whose
 * lock is gone (its runner died) is found by F_OFD_GETLK and cleared
 * only when the count says "full", i.e. only when it could matter.
 *
 * Every update of the mapped records is done under the table lock, an
 * OFD write lock on byte 0, held for a few memory reads and writes.
 *
 * A runner whose delivery the window refused waits for another runner
 * to give a slot back: the header's release count is a futex word in
 * the shared mapping; spool_dest_release raises it and wakes the
 * sleepers (FUTEX_WAKE, a system call only when the waiter count says
 * someone sleeps), spool_dest_wait sleeps on it.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "fnv.h"
#include "spool_dest.h"
#include "spool_path.h"

/* Records nobody used for this long may be given to another key. */
#define SPOOL_DEST_IDLE 600.0

/* spool_dest_size - bytes of the file: a page of header, the records */
static size_t
spool_dest_size(void)
{
	return 4096 +
	       (size_t)SPOOL_DEST_RECORDS * sizeof(struct spool_dest_rec);
}

/* spool_dest_fl - a fcntl lock request on one byte */
static int
spool_dest_fl(int fd, int cmd, short type, off_t byte)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = byte;
	fl.l_len = 1;
	if (fcntl(fd, cmd, &fl) == -1)
		return -1;
	return cmd == F_OFD_GETLK ? fl.l_type : 0;
}

/* spool_dest_slot_byte - the byte whose lock is slot `slot` of idx; past
 * the end of the file, which fcntl allows */
static off_t
spool_dest_slot_byte(int idx, int slot)
{
	return (off_t)spool_dest_size() + (off_t)idx * SPOOL_DEST_SLOTS + slot;
}

/* spool_dest_open - map the table; create: make it (and state/) when
 * missing.  -1 with errno set. */
int
spool_dest_open(struct spool_dest *sd, const char *spool, int create)
{
	char dir[PATH_MAX], path[PATH_MAX];
	size_t size = spool_dest_size();
	struct spool_dest_hdr *h;
	struct stat st;
	void *map;
	int fd, save;

	memset(sd, 0, sizeof(*sd));
	sd->fd = -1;
	if (spool_path(dir, sizeof(dir), spool, SPOOL_STATE) == -1 ||
	    spool_path(path, sizeof(path), spool, SPOOL_DEST_FILE) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (create && mkdir(dir, SPOOL_DIR_MODE) == -1 && errno != EEXIST)
		return -1;
	if ((fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0),
		 SPOOL_FILE_MODE)) == -1)
		return -1;
	sd->fd = fd;
	if (spool_dest_lock(sd) == -1 || fstat(fd, &st) == -1)
		goto fail;
	if ((size_t)st.st_size < size && !create) {
		errno = ENOENT;
		goto fail;
	}
	/* Allocated, not just sized: a store into a sparse page of a full
	 * file system kills the process with SIGBUS, where this fails
	 * with ENOSPC and the runner schedules on its own.  A file an
	 * older runner made sparse is filled in here too. */
	if (create && (errno = posix_fallocate(fd, 0, (off_t)size)) != 0)
		goto fail;
	if ((map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0)) == MAP_FAILED)
		goto fail;
	sd->hdr = h = map;
	sd->rec = (struct spool_dest_rec *)(void *)((char *)map + 4096);
	sd->maplen = size;
	sd->pid = getpid();
	if (memcmp(h->magic, SPOOL_DEST_MAGIC, sizeof(SPOOL_DEST_MAGIC)) != 0 ||
	    h->records != SPOOL_DEST_RECORDS ||
	    h->recsize != sizeof(struct spool_dest_rec)) {
		/* New, or another format: runtime state, start afresh. */
		if (!create) {
			errno = ENOENT;
			goto fail;
		}
		memset(map, 0, size);
		memcpy(h->magic, SPOOL_DEST_MAGIC, sizeof(SPOOL_DEST_MAGIC));
		h->records = SPOOL_DEST_RECORDS;
		h->recsize = sizeof(struct spool_dest_rec);
	}
	spool_dest_unlock(sd);
	return 0;
fail:
	save = errno;
	spool_dest_close(sd);
	errno = save;
	return -1;
}

/* spool_dest_close - unmap and close: our slot locks go with the fd */
void
spool_dest_close(struct spool_dest *sd)
{
	if (sd->hdr != NULL)
		(void)munmap(sd->hdr, sd->maplen);
	if (sd->fd != -1)
		(void)close(sd->fd);
	sd->hdr = NULL;
	sd->rec = NULL;
	sd->fd = -1;
}

/* spool_dest_lock - the table lock (waits; held only for memory access) */
int
spool_dest_lock(struct spool_dest *sd)
{
	while (spool_dest_fl(sd->fd, F_OFD_SETLKW, F_WRLCK, 0) == -1)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* spool_dest_unlock - release the table lock */
void
spool_dest_unlock(struct spool_dest *sd)
{
	(void)spool_dest_fl(sd->fd, F_OFD_SETLK, F_UNLCK, 0);
}

/* spool_dest_hash - FNV-1a over transport, a 0xff and nexthop, and a
 * 0xff and the source when there is one */
static uint64_t
spool_dest_hash(const char *transport, const char *nexthop, const char *source)
{
	uint64_t h = fnv1a_str(
	    fnv1a_byte(fnv1a_str(FNV1A_BASIS, transport), 0xff), nexthop);

	return *source ? fnv1a_str(fnv1a_byte(h, 0xff), source) : h;
}

/* spool_dest_match - does record idx belong to this destination? */
int
spool_dest_match(const struct spool_dest *sd, int idx, const char *transport,
    const char *nexthop, const char *source)
{
	const struct spool_dest_rec *r = &sd->rec[idx];

	return r->used && strcmp(r->transport, transport) == 0 &&
	       strcmp(r->nexthop, nexthop) == 0 &&
	       strcmp(r->source, source) == 0;
}

/* spool_dest_reusable - a record that may be given to another key:
 * free, or idle long enough with nothing worth keeping */
static int
spool_dest_reusable(struct spool_dest *sd, int idx, double now)
{
	const struct spool_dest_rec *r = &sd->rec[idx];

	if (!r->used)
		return 1;
	return !r->ds.dead && now - r->updated > SPOOL_DEST_IDLE &&
	       spool_dest_busy(sd, idx, 1, NULL) == 0;
}

/* spool_dest_find - the record of a destination, made when create is
 * set and there is room; -1 when none.  Call under the table lock. */
int
spool_dest_find(struct spool_dest *sd, const char *transport,
    const char *nexthop, const char *source, int create, double now)
{
	uint64_t h = spool_dest_hash(transport, nexthop, source);
	struct spool_dest_rec *r;
	int i, idx, spare = -1;

	if (strlen(transport) > SPOOL_DEST_TRANSPORT_MAX ||
	    strlen(nexthop) > SPOOL_DEST_NEXTHOP_MAX ||
	    strlen(source) > SPOOL_DEST_SOURCE_MAX)
		return -1;
	/* Records are reused in place, never emptied, so a key is always
	 * within SPOOL_DEST_PROBE of its hash: look at all of them. */
	for (i = 0; i < SPOOL_DEST_PROBE; i++) {
		idx = (int)((h + (uint64_t)i) % SPOOL_DEST_RECORDS);
		if (spool_dest_match(sd, idx, transport, nexthop, source))
			return idx;
		if (spare == -1 && create && spool_dest_reusable(sd, idx, now))
			spare = idx;
	}
	if (spare == -1)
		return -1;
	r = &sd->rec[spare];
	memset(r, 0, sizeof(*r));
	r->used = 1;
	r->ds.window = -1; /* no feedback state yet: the first runner's */
	r->updated = now;
	memcpy(r->transport, transport, strlen(transport) + 1);
	memcpy(r->nexthop, nexthop, strlen(nexthop) + 1);
	memcpy(r->source, source, strlen(source) + 1);
	return spare;
}

/* spool_dest_busy - deliveries in flight to idx over all runners, *mine
 * (if not NULL) of them ours; with verify, hints of other processes are
 * checked against their locks and stale ones (a dead runner's) cleared.
 * Call under the table lock. */
int
spool_dest_busy(struct spool_dest *sd, int idx, int verify, int *mine)
{
	struct spool_dest_rec *r = &sd->rec[idx];
	int i, n = 0, t;

	if (mine != NULL)
		*mine = 0;
	for (i = 0; i < SPOOL_DEST_SLOTS; i++) {
		if (r->holder[i] == 0)
			continue;
		if (mine != NULL && r->holder[i] == (int32_t)sd->pid)
			(*mine)++;
		/* Our own locks do not conflict with us: trust our hints. */
		if (verify && r->holder[i] != sd->pid &&
		    (t = spool_dest_fl(sd->fd, F_OFD_GETLK, F_WRLCK,
			 spool_dest_slot_byte(idx, i))) == F_UNLCK) {
			r->holder[i] = 0;
			continue;
		}
		n++;
	}
	return n;
}

/* spool_dest_take - lock a free slot of idx for us: the slot, or -1 */
int
spool_dest_take(struct spool_dest *sd, int idx)
{
	struct spool_dest_rec *r = &sd->rec[idx];
	int i;

	for (i = 0; i < SPOOL_DEST_SLOTS; i++) {
		if (r->holder[i] != 0)
			continue;
		if (spool_dest_fl(sd->fd, F_OFD_SETLK, F_WRLCK,
			spool_dest_slot_byte(idx, i)) == -1)
			continue; /* held without a hint: not ours to take */
		r->holder[i] = (int32_t)sd->pid;
		return i;
	}
	return -1;
}

/* spool_dest_release - give a slot back, and wake the runners waiting
 * for one (spool_dest_wait) */
void
spool_dest_release(struct spool_dest *sd, int idx, int slot)
{
	(void)spool_dest_fl(
	    sd->fd, F_OFD_SETLK, F_UNLCK, spool_dest_slot_byte(idx, slot));
	if (sd->rec[idx].holder[slot] == (int32_t)sd->pid)
		sd->rec[idx].holder[slot] = 0;
	/* The count first, then the waiters: a waiter counts itself before
	 * the kernel compares the count, so one of the two sees the other. */
	__atomic_add_fetch(&sd->hdr->release_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sd->hdr->waiters, __ATOMIC_SEQ_CST) > 0)
		(void)syscall(SYS_futex, &sd->hdr->release_seq, FUTEX_WAKE,
		    INT_MAX, NULL, NULL, 0);
}

/* spool_dest_seq - slots given back so far, to wait on */
uint32_t
spool_dest_seq(const struct spool_dest *sd)
{
	return __atomic_load_n(&sd->hdr->release_seq, __ATOMIC_SEQ_CST);
}

/* spool_dest_wait - sleep until a slot is given back after seq was
 * read, or timeout_ms; 0 when one was, -1 otherwise.  Any thread may
 * wait: the futex is on the shared mapping, so every process's
 * spool_dest_release wakes it. */
int
spool_dest_wait(struct spool_dest *sd, uint32_t seq, int timeout_ms)
{
	struct timespec ts;
	long r;

	ts.tv_sec = timeout_ms / 1000;
	ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
	__atomic_add_fetch(&sd->hdr->waiters, 1, __ATOMIC_SEQ_CST);
	r = syscall(
	    SYS_futex, &sd->hdr->release_seq, FUTEX_WAIT, seq, &ts, NULL, 0);
	__atomic_sub_fetch(&sd->hdr->waiters, 1, __ATOMIC_SEQ_CST);
	(void)r;
	return spool_dest_seq(sd) != seq ? 0 : -1;
}

/* spool_dest_held - the exact busy count of idx, from the locks alone
 * (for a reader that holds none, such as mj_queueserv status) */
int
spool_dest_held(struct spool_dest *sd, int idx)
{
	int i, n = 0;

	/* A slot is taken and hinted in one step under the table lock, so
	 * an unhinted slot is never held: only hinted ones are asked. */
	for (i = 0; i < SPOOL_DEST_SLOTS; i++)
		if (sd->rec[idx].holder[i] != 0 &&
		    spool_dest_fl(sd->fd, F_OFD_GETLK, F_WRLCK,
			spool_dest_slot_byte(idx, i)) == F_WRLCK)
			n++;
	return n;
}

/* spool_dest_counts_reset - zero every record's delivered, deferred and
 * bounced counts and start them now (the server, at its start); makes
 * the table when missing.  -1 with errno set. */
int
spool_dest_counts_reset(const char *spool, double now)
{
	struct spool_dest sd;
	int i;

	if (spool_dest_open(&sd, spool, 1) == -1)
		return -1;
	if (spool_dest_lock(&sd) == -1) {
		spool_dest_close(&sd);
		return -1;
	}
	for (i = 0; i < SPOOL_DEST_RECORDS; i++)
		sd.rec[i].delivered = sd.rec[i].deferred = sd.rec[i].bounced =
		    0;
	sd.hdr->counts_since = now;
	spool_dest_unlock(&sd);
	spool_dest_close(&sd);
	return 0;
}

/* spool_dest_tls_name - the word for a record's tls field */
const char *
spool_dest_tls_name(int tls)
{
	static const char *const names[SPOOL_DEST_TLS_N] = {
	    "-", "none", "anonymous", "untrusted", "trusted", "verified"};

	return tls >= 0 && tls < SPOOL_DEST_TLS_N ? names[tls] : "?";
}
