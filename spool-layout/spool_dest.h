/*
 * spool_dest.h - the destination table shared by every runner:
 * $spool/state/destinations (spool-layout/README, "The destination
 * table").
 *
 * A fixed-size file of fixed-size records, memory-mapped by every runner
 * and by mj_queueserv's status.  A record holds one destination's
 * concurrency window, feedback state, dead-until time, rate-limit state,
 * last error and the recipients delivered, deferred and bounced since
 * the server started (which zeroes them, spool_dest_counts_reset).  Busy slots
 * are not counted in the file: each is an OFD byte-range lock (fcntl
 * F_OFD_SETLK) on a byte of its own, held by the runner that delivers, so the
 * kernel frees the slots of a runner that dies, even by kill -9.  The holder[]
 * pids in the record are only hints that make counting cheap; a hint without
 * its lock is stale and is cleared when it matters.
 */
#ifndef MJQ_SPOOL_DEST_H
#define MJQ_SPOOL_DEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dest_state.h"
#include "spool_dest_name.h"

#define SPOOL_DEST_FILE "state/destinations"
#define SPOOL_DEST_MAGIC "mjq-destinations 4\n"
#define SPOOL_DEST_RECORDS 4096 /* destinations at once */
#define SPOOL_DEST_SLOTS 128	/* busy slots per destination, at most */
#define SPOOL_DEST_PROBE 32	/* records probed from a key's hash */
#define SPOOL_DEST_TRANSPORT_MAX 15
#define SPOOL_DEST_NEXTHOP_MAX 299
#define SPOOL_DEST_ERROR_MAX 199
#define SPOOL_DEST_SOURCE_MAX 45 /* an IPv6 address as text */

/* What the last session to a destination was (the record's tls field);
 * the names are spool_dest_tls_name's. */
enum spool_dest_tls {
	SPOOL_DEST_TLS_UNKNOWN,	  /* no session yet, or not SMTP */
	SPOOL_DEST_TLS_NONE,	  /* clear text */
	SPOOL_DEST_TLS_ANONYMOUS, /* TLS, no server certificate */
	SPOOL_DEST_TLS_UNTRUSTED, /* TLS, certificate not trusted */
	SPOOL_DEST_TLS_TRUSTED,	  /* TLS, trusted, name not matched */
	SPOOL_DEST_TLS_VERIFIED,  /* TLS, trusted (or DANE) and name */
	SPOOL_DEST_TLS_N
};

/*
 * A destination is a transport and nexthop, and, when it is sent to from
 * a pool of local addresses, the source address: a receiver throttles
 * and judges per sending address, so each (destination, source) has its
 * own window, feedback, dead timer and rate (spool_dest_name.c has the
 * one spelling of that key).  One destination, as mapped (native byte
 * order, one host):
 */
struct spool_dest_rec {
	uint32_t used;	      /* 0: free */
	int32_t tls;	      /* the last session: SPOOL_DEST_TLS_* */
	struct dest_state ds; /* window (-1: not yet set), feedback, dead */
	double updated;	      /* last change (epoch s) */
	char transport[SPOOL_DEST_TRANSPORT_MAX + 1];
	char nexthop[SPOOL_DEST_NEXTHOP_MAX + 1];
	char last_error[SPOOL_DEST_ERROR_MAX + 1];
	int32_t holder[SPOOL_DEST_SLOTS]; /* pid hint per busy slot, 0 free */
	uint64_t delivered, deferred,
	    bounced;	 /* recipients, since counts_since */
	double error_at; /* when last_error was set */
	char source[SPOOL_DEST_SOURCE_MAX + 1]; /* local address; "" any */
};

struct spool_dest_hdr {
	char magic[32];
	uint32_t records;
	uint32_t recsize;
	uint32_t release_seq;  /* slots given back so far (a futex word) */
	uint32_t waiters;      /* runners waiting for release_seq to move */
	double counts_since;   /* the records' counts start here (epoch s) */
	int32_t cluster;       /* [cluster]: 0 off or not yet, 1 shared in
				  Redis, 2 local shares (Redis unreachable) */
	int64_t cluster_since; /* in that state since (epoch s) */
};

/* An open table: the mapping and the descriptor the locks belong to. */
struct spool_dest {
	int fd;
	struct spool_dest_hdr *hdr;
	struct spool_dest_rec *rec;
	size_t maplen;
	pid_t pid; /* ours, for holder[] */
};

int spool_dest_open(struct spool_dest *, const char *spool, int create);
void spool_dest_close(struct spool_dest *);
int spool_dest_lock(struct spool_dest *);
void spool_dest_unlock(struct spool_dest *);
int spool_dest_find(struct spool_dest *, const char *transport,
    const char *nexthop, const char *source, int create, double now);
int spool_dest_match(const struct spool_dest *, int idx, const char *transport,
    const char *nexthop, const char *source);
int spool_dest_busy(struct spool_dest *, int idx, int verify, int *mine);
int spool_dest_take(struct spool_dest *, int idx);
void spool_dest_release(struct spool_dest *, int idx, int slot);
int spool_dest_held(struct spool_dest *, int idx);
const char *spool_dest_tls_name(int);
uint32_t spool_dest_seq(const struct spool_dest *);
int spool_dest_wait(struct spool_dest *, uint32_t seq, int timeout_ms);
int spool_dest_counts_reset(const char *spool, double now);

#endif
