/*
 * spool_sts.c - the MTA-STS policy cache shared by every runner,
 * $spool/state/mta-sts (see spool_sts.h and spool-layout/README).
 *
 * Made as the destination table is (spool_dest.c): each segment
 * allocated in full when it is added, so that a store into the mapping
 * cannot meet a full file system; a file of another format is started
 * afresh, since it holds nothing that cannot be fetched again.  A
 * domain's record is within SPOOL_STS_PROBE records of its hash in one
 * of the segments.  RFC 8461 5.1 keeps a policy until its max_age, so a
 * new domain never takes the record of an enforce or testing policy in
 * force: it takes a free record, else a stale one (an expired policy,
 * a "no policy" due for a new look), else a new segment twice the last
 * one's size is added, and only when all SPOOL_STS_SEGMENTS are there
 * a record that holds no policy in force (none known, mode none); with
 * none of those the domain is not cached (ENOSPC, the caller logs it).
 * A segment is added by growing the file, its space zeros, and then
 * raising the header's count, one word: a crash leaves the old table
 * or the new one.  Other processes map the new segment when they next
 * take the lock.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "fnv.h"
#include "spool_path.h"
#include "spool_sts.h"

/* spool_sts_nrec - records in the first nseg segments */
static size_t
spool_sts_nrec(uint32_t nseg)
{
	return (size_t)SPOOL_STS_RECORDS * (((size_t)1 << nseg) - 1);
}

/* spool_sts_size - bytes of the file: a page of header, the records of
 * nseg segments */
static size_t
spool_sts_size(uint32_t nseg)
{
	return 4096 + spool_sts_nrec(nseg) * sizeof(struct spool_sts_rec);
}

/* spool_sts_segments - the segments the header says are in use */
static uint32_t
spool_sts_segments(const struct spool_sts_hdr *h)
{
	if (h->segments == 0)
		return 1;
	return h->segments < SPOOL_STS_SEGMENTS ? h->segments
						: SPOOL_STS_SEGMENTS;
}

/* spool_sts_fl - a fcntl lock request on byte 0 */
static int
spool_sts_fl(int fd, int cmd, short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = 0;
	fl.l_len = 1;
	return fcntl(fd, cmd, &fl);
}

/* spool_sts_mmap - map nseg segments of the open file in place of what
 * is mapped; -1 (the old mapping kept) when it cannot */
static int
spool_sts_mmap(struct spool_sts *ss, uint32_t nseg)
{
	size_t size = spool_sts_size(nseg);
	struct stat st;
	void *map;

	if (fstat(ss->fd, &st) == -1)
		return -1;
	if ((size_t)st.st_size < size) {
		errno = ENOENT; /* a header ahead of its records */
		return -1;
	}
	if ((map = mmap(NULL, size, PROT_READ | (ss->writable ? PROT_WRITE : 0),
		 MAP_SHARED, ss->fd, 0)) == MAP_FAILED)
		return -1;
	if (ss->hdr != NULL)
		(void)munmap(ss->hdr, ss->maplen);
	ss->hdr = map;
	ss->rec = (struct spool_sts_rec *)(void *)((char *)map + 4096);
	ss->maplen = size;
	ss->nseg = nseg;
	ss->nrec = spool_sts_nrec(nseg);
	return 0;
}

/* spool_sts_lock - the table lock (waits; held only for memory access):
 * a write lock, or a read lock for a reader that opened it read-only;
 * then the segments another process added are mapped */
int
spool_sts_lock(struct spool_sts *ss)
{
	while (spool_sts_fl(ss->fd, F_OFD_SETLKW,
		   ss->writable ? F_WRLCK : F_RDLCK) == -1)
		if (errno != EINTR)
			return -1;
	if (spool_sts_segments(ss->hdr) != ss->nseg &&
	    spool_sts_mmap(ss, spool_sts_segments(ss->hdr)) == -1) {
		spool_sts_unlock(ss);
		return -1;
	}
	return 0;
}

/* spool_sts_unlock - release the table lock */
void
spool_sts_unlock(struct spool_sts *ss)
{
	(void)spool_sts_fl(ss->fd, F_OFD_SETLK, F_UNLCK);
}

/* spool_sts_map - map the open file and check or start its header */
static int
spool_sts_map(struct spool_sts *ss, int create)
{
	size_t size = spool_sts_size(1);
	struct spool_sts_hdr *h;
	struct stat st;

	if (fstat(ss->fd, &st) == -1)
		return -1;
	if (create && (size_t)st.st_size < size &&
	    (errno = posix_fallocate(ss->fd, 0, (off_t)size)) != 0)
		return -1;
	if (spool_sts_mmap(ss, 1) == -1)
		return -1;
	h = ss->hdr;
	if (memcmp(h->magic, SPOOL_STS_MAGIC, sizeof(SPOOL_STS_MAGIC)) == 0 &&
	    h->records == SPOOL_STS_RECORDS &&
	    h->recsize == sizeof(struct spool_sts_rec))
		return spool_sts_segments(h) == 1
			   ? 0
			   : spool_sts_mmap(ss, spool_sts_segments(h));
	/* New, or another format: runtime state, start afresh. */
	if (!create) {
		errno = ENOENT;
		return -1;
	}
	/* A new file is zeros already: clearing it would only bring its
	 * every page into the runner's memory. */
	if (st.st_size != 0)
		memset(ss->hdr, 0, size);
	memcpy(h->magic, SPOOL_STS_MAGIC, sizeof(SPOOL_STS_MAGIC));
	h->records = SPOOL_STS_RECORDS;
	h->recsize = sizeof(struct spool_sts_rec);
	h->segments = 1;
	return 0;
}

/* spool_sts_open - map the cache; create: make it (and state/) when
 * missing, writable; else read-only (status).  -1 with errno set. */
int
spool_sts_open(struct spool_sts *ss, const char *spool, int create)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int save;

	memset(ss, 0, sizeof(*ss));
	ss->fd = -1;
	if (spool_path(dir, sizeof(dir), spool, SPOOL_STATE) == -1 ||
	    spool_path(path, sizeof(path), spool, SPOOL_STS_FILE) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (create && mkdir(dir, SPOOL_DIR_MODE) == -1 && errno != EEXIST)
		return -1;
	if ((ss->fd = open(path,
		 (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC,
		 SPOOL_FILE_MODE)) == -1)
		return -1;
	ss->writable = create;
	if (spool_sts_fl(ss->fd, F_OFD_SETLKW, create ? F_WRLCK : F_RDLCK) ==
	    -1)
		goto fail;
	if (spool_sts_map(ss, create) == -1) {
		spool_sts_unlock(ss);
		goto fail;
	}
	spool_sts_unlock(ss);
	return 0;
fail:
	save = errno;
	spool_sts_close(ss);
	errno = save;
	return -1;
}

/* spool_sts_close - unmap and close */
void
spool_sts_close(struct spool_sts *ss)
{
	if (ss->hdr != NULL)
		(void)munmap(ss->hdr, ss->maplen);
	if (ss->fd != -1)
		(void)close(ss->fd);
	ss->hdr = NULL;
	ss->rec = NULL;
	ss->fd = -1;
}

/* spool_sts_grow - add a segment (under the write lock): the file grown
 * to hold it, zeros, mapped, then counted in the header; -1 with errno
 * (ENOSPC when all segments are there) */
static int
spool_sts_grow(struct spool_sts *ss)
{
	size_t old = spool_sts_size(ss->nseg), size;

	if (ss->nseg >= SPOOL_STS_SEGMENTS) {
		errno = ENOSPC;
		return -1;
	}
	size = spool_sts_size(ss->nseg + 1);
	/* What lies past the table (a grow cut short) is not trusted to be
	 * zeros: cut it off first. */
	if (ftruncate(ss->fd, (off_t)old) == -1 ||
	    (errno = posix_fallocate(ss->fd, 0, (off_t)size)) != 0 ||
	    spool_sts_mmap(ss, ss->nseg + 1) == -1)
		return -1;
	ss->hdr->segments = ss->nseg;
	return 0;
}

/* spool_sts_rank - how willingly record r is given to a new domain: 0
 * free, 1 stale (an expired policy, a "no policy" due for a new look),
 * 2 no policy in force (none known, mode none), 3 never (an enforce or
 * testing policy in force, a fetch on it) */
static int
spool_sts_rank(const struct spool_sts_rec *r, double now)
{
	if (!r->used)
		return 0;
	if (r->fetching > now)
		return 3;
	if (r->mode == SPOOL_STS_NO_POLICY)
		return r->recheck <= now ? 1 : 2;
	if (r->expires <= now)
		return 1;
	return r->mode == SPOOL_STS_NONE ? 2 : 3;
}

/* spool_sts_probe - look for domain (hash h) in every segment's probe
 * run: its index, or -1 with *spare the record of the best rank (the
 * least recently used of it), -1 when all rank 3 */
static int
spool_sts_probe(struct spool_sts *ss, const char *domain, uint64_t h,
    double now, int *spare)
{
	size_t base = 0, n = SPOOL_STS_RECORDS, idx;
	int i, rank, best = 3;
	uint32_t seg;

	*spare = -1;
	for (seg = 0; seg < ss->nseg; seg++, base += n, n *= 2)
		for (i = 0; i < SPOOL_STS_PROBE; i++) {
			idx = base + (size_t)((h + (uint64_t)i) % n);
			if (ss->rec[idx].used &&
			    strcmp(ss->rec[idx].domain, domain) == 0)
				return (int)idx;
			rank = spool_sts_rank(&ss->rec[idx], now);
			if (rank < best || (rank == best && rank < 3 &&
					       ss->rec[idx].used_at <
						   ss->rec[*spare].used_at)) {
				best = rank;
				*spare = (int)idx;
			}
		}
	return -1;
}

/* spool_sts_find - the record of a domain, made when create is set (see
 * spool_sts.h); -1 when none.  Call under the table lock. */
int
spool_sts_find(struct spool_sts *ss, const char *domain, int create, double now)
{
	uint64_t h = fnv1a_str(FNV1A_BASIS, domain);
	struct spool_sts_rec *r;
	int idx, spare;

	if (strlen(domain) > SPOOL_STS_DOMAIN_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((idx = spool_sts_probe(ss, domain, h, now, &spare)) >= 0 || !create)
		return idx;
	if ((spare == -1 || spool_sts_rank(&ss->rec[spare], now) == 2) &&
	    spool_sts_grow(ss) == 0)
		(void)spool_sts_probe(ss, domain, h, now, &spare);
	if (spare == -1) {
		errno = ENOSPC;
		return -1;
	}
	r = &ss->rec[spare];
	memset(r, 0, sizeof(*r));
	r->used = 1;
	r->used_at = now;
	memcpy(r->domain, domain, strlen(domain) + 1);
	return spare;
}

/* spool_sts_mode_name - "enforce", "testing", "none", or "-" for none */
const char *
spool_sts_mode_name(int mode)
{
	static const char *const names[] = {"-", "enforce", "testing", "none"};

	return mode >= 0 && mode < 4 ? names[mode] : "?";
}
