/*
 * spool_sts.h - the MTA-STS policy cache shared by every runner of a
 * host: $spool/state/mta-sts (spool-layout/README, "The MTA-STS policy
 * cache").
 *
 * A file of fixed-size records in segments that only grow (1024
 * records, then 2048, 4096, ...), memory-mapped by every runner and by
 * mj_queueserv's status, as the destination table is (spool_dest.h).  A record
 * holds one recipient domain's policy as the last fetch found it (mode,
 * max_age, mx patterns, the id of the TXT record it came with), when it
 * expires, when its TXT record is to be looked at again, and who is fetching it
 * now.  The file knows nothing of what a policy means: the caller
 * (deliver/deliver_sts.c) fills and reads the fields.  Every access is under
 * the table lock: an OFD write lock on byte 0, held for a few memory reads and
 * writes.
 */
#ifndef MJQ_SPOOL_STS_H
#define MJQ_SPOOL_STS_H

#include <stddef.h>
#include <stdint.h>

#define SPOOL_STS_FILE "state/mta-sts"
#define SPOOL_STS_MAGIC "mjq-mta-sts 1\n"
#define SPOOL_STS_RECORDS 1024 /* records of the first segment */
#define SPOOL_STS_SEGMENTS 6   /* at most: 64512 records, ~300 MB */
#define SPOOL_STS_PROBE 32     /* records probed from a key's hash */
#define SPOOL_STS_DOMAIN_MAX 255
#define SPOOL_STS_ID_MAX 32
#define SPOOL_STS_MX 16 /* patterns per policy */
#define SPOOL_STS_MX_LEN 255
#define SPOOL_STS_ERROR_MAX 199

/* A record's mode: the policy's, or none known. */
enum spool_sts_mode {
	SPOOL_STS_NO_POLICY, /* no TXT record, no policy that could be had */
	SPOOL_STS_ENFORCE,
	SPOOL_STS_TESTING,
	SPOOL_STS_NONE /* mode: none, kept so that its id is known */
};

/* One domain's policy, as mapped (native byte order, one host). */
struct spool_sts_rec {
	uint32_t used;	 /* 0: free */
	int32_t mode;	 /* the caller's: 0 no policy, else its mode */
	int64_t max_age; /* seconds, as the policy said */
	double fetched;	 /* when the policy was fetched (epoch s) */
	double expires;	 /* fetched + max_age: not used past it */
	double recheck;	 /* look at the TXT record again from then */
	double fetching; /* a runner fetches it until then (0: none) */
	double error_at; /* when last_error was set */
	double used_at;	 /* last looked up by a delivery */
	uint32_t nmx;
	char domain[SPOOL_STS_DOMAIN_MAX + 1];
	char id[SPOOL_STS_ID_MAX + 1];
	char mx[SPOOL_STS_MX][SPOOL_STS_MX_LEN + 1];
	char last_error[SPOOL_STS_ERROR_MAX + 1];
};

struct spool_sts_hdr {
	char magic[32];
	uint32_t records; /* of the first segment: SPOOL_STS_RECORDS */
	uint32_t recsize;
	uint32_t segments; /* in use (0, as in a file before them: 1) */
};

/* An open cache. */
struct spool_sts {
	int fd;
	struct spool_sts_hdr *hdr;
	struct spool_sts_rec *rec;
	size_t maplen;
	uint32_t nseg; /* segments mapped */
	size_t nrec;   /* records mapped: rec[0] to rec[nrec - 1] */
	int writable;  /* opened by a runner; else read-only (status) */
};

int spool_sts_open(struct spool_sts *, const char *spool, int create);
void spool_sts_close(struct spool_sts *);
/* spool_sts_lock - the table lock, the mapping brought up to the
 * file's segments (another runner may have added one); -1 when the
 * lock or the mapping failed */
int spool_sts_lock(struct spool_sts *);
void spool_sts_unlock(struct spool_sts *);
/* spool_sts_find - the index of domain's record; with create, made
 * when missing, in a free record or one that holds no policy in force
 * (an enforce or testing policy is never given up before it expires),
 * a segment added when none is left; -1 when none (ENOSPC: every
 * segment there may be is full of policies in force) */
int spool_sts_find(
    struct spool_sts *, const char *domain, int create, double now);
const char *spool_sts_mode_name(int);

#endif
