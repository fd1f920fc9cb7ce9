/*
 * spool_sts.c - the MTA-STS policy cache shared by every runner,
 * $spool/state/mta-sts (see spool_sts.h and spool-layout/README).
 *
 * Made as the destination table is (spool_dest.c): allocated in full at
 * creation, so that a store into the mapping cannot meet a full file
 * system; a file of another format or size is started afresh, since it
 * holds nothing that cannot be fetched again.  A domain's record is
 * within SPOOL_STS_PROBE records of its hash; when all of those are
 * taken, the one a delivery looked up longest ago is given up, unless a
 * fetch is on it.
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

/* spool_sts_size - bytes of the file: a page of header, the records */
static size_t
spool_sts_size(void)
{
	return 4096 + (size_t)SPOOL_STS_RECORDS * sizeof(struct spool_sts_rec);
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

/* spool_sts_lock - the table lock (waits; held only for memory access):
 * a write lock, or a read lock for a reader that opened it read-only */
int
spool_sts_lock(struct spool_sts *ss)
{
	while (spool_sts_fl(ss->fd, F_OFD_SETLKW,
		   ss->writable ? F_WRLCK : F_RDLCK) == -1)
		if (errno != EINTR)
			return -1;
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
	size_t size = spool_sts_size();
	struct spool_sts_hdr *h;
	struct stat st;
	void *map;

	if (fstat(ss->fd, &st) == -1)
		return -1;
	if ((size_t)st.st_size < size && !create) {
		errno = ENOENT;
		return -1;
	}
	if (create && (errno = posix_fallocate(ss->fd, 0, (off_t)size)) != 0)
		return -1;
	if ((map = mmap(NULL, size, PROT_READ | (create ? PROT_WRITE : 0),
		 MAP_SHARED, ss->fd, 0)) == MAP_FAILED)
		return -1;
	ss->hdr = h = map;
	ss->rec = (struct spool_sts_rec *)(void *)((char *)map + 4096);
	ss->maplen = size;
	if (memcmp(h->magic, SPOOL_STS_MAGIC, sizeof(SPOOL_STS_MAGIC)) == 0 &&
	    h->records == SPOOL_STS_RECORDS &&
	    h->recsize == sizeof(struct spool_sts_rec))
		return 0;
	/* New, or another format: runtime state, start afresh. */
	if (!create) {
		errno = ENOENT;
		return -1;
	}
	/* A new file is zeros already: clearing it would only bring its
	 * every page into the runner's memory. */
	if (st.st_size != 0)
		memset(map, 0, size);
	memcpy(h->magic, SPOOL_STS_MAGIC, sizeof(SPOOL_STS_MAGIC));
	h->records = SPOOL_STS_RECORDS;
	h->recsize = sizeof(struct spool_sts_rec);
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
	if (spool_sts_lock(ss) == -1)
		goto fail;
	if (spool_sts_map(ss, create) == -1)
		goto fail;
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

/* spool_sts_find - the record of a domain, made when create is set (the
 * least recently used of its probe run given up when none is free); -1
 * when none.  Call under the table lock. */
int
spool_sts_find(struct spool_sts *ss, const char *domain, int create, double now)
{
	uint64_t h = fnv1a_str(FNV1A_BASIS, domain);
	struct spool_sts_rec *r;
	int i, idx, spare = -1;

	if (strlen(domain) > SPOOL_STS_DOMAIN_MAX)
		return -1;
	for (i = 0; i < SPOOL_STS_PROBE; i++) {
		idx = (int)((h + (uint64_t)i) % SPOOL_STS_RECORDS);
		r = &ss->rec[idx];
		if (r->used && strcmp(r->domain, domain) == 0)
			return idx;
		if (!create || (r->used && r->fetching > now))
			continue;
		if (spare == -1 || !r->used ||
		    (ss->rec[spare].used &&
			r->used_at < ss->rec[spare].used_at))
			spare = idx;
	}
	if (spare == -1)
		return -1;
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
