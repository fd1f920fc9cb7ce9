/*
 * spool_digest.h - a list's digest in the spool: the posts collected for
 * it and the issue being sent, under $spool/state/digest/<domain>/<list>/
 * (spool-layout/README, "Digests": the numbered states).
 *
 *   spool_digest.c        paths, the collection (C1-C3), its listing,
 *                         the locks and the counter
 *   spool_digest_issue.c  an issue made (D1) and sent (D2-D4)
 */
#ifndef MJQ_SPOOL_DIGEST_H
#define MJQ_SPOOL_DIGEST_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "names.h"
#include "spool_name.h"

#define SPOOL_DIGEST "digest" /* under state/ */
#define SPOOL_DIGEST_ENTRY_MAX (SPOOL_NAME_MAX + 32)

/* A post in the collection: posts/<name>, <dd>-<ll>-<hash>-<queue name>
 * (its tiers, so that an issue goes out at the list's priority, and its
 * text's hash, so that another post of the same queue name is another
 * entry). */
struct spool_digest_entry {
	char name[SPOOL_DIGEST_ENTRY_MAX + 1];
	off_t size;
	long long mtime_ns; /* when it was collected */
};

/* state/digest/<domain>/<list>/counter: the last issue made. */
struct spool_digest_counter {
	long long volume, issue, year, last; /* last: when it was made */
	int dprio, lprio;		     /* the tiers it went out in */
};

/* One message of an issue, for its readers of one kind. */
struct spool_digest_kind {
	const char *kind; /* "digest" or "digest-plain": its name's command */
	const char *state, *msg;
	size_t statelen, msglen;
};

int spool_digest_dir(char *buf, size_t len, const char *spool,
    const char *domain, const char *list);
int spool_digest_collect(const char *spool, const char *domain,
    const char *list, int dprio, int lprio, const char *qname, const char *text,
    size_t len);
int spool_collect_post(const char *spool, const char *dir, int dprio, int lprio,
    const char *qname, const char *text, size_t len);
int spool_digest_entries(
    const char *dir, struct spool_digest_entry **v, size_t *n);
int spool_digest_read(
    const char *dir, const char *entry, char **text, size_t *len);
int spool_digest_slurp(const char *path, char **text, size_t *len);
int spool_digest_entry_tiers(const char *entry, int *dprio, int *lprio);
int spool_digest_lock(const char *dir);
/* spool_digest_lock_wait - the digest lock, waiting for another runner's
 * issue (LOCKEDIT_WAIT_MS at most); its descriptor, or -1 */
int spool_digest_lock_wait(const char *dir);
/* spool_digest_modes - <dir>/modes.lock: shared while a post is
 * collected and its recipients read, exclusive while a reader's mode
 * changes to or from digest (listfn/digest_mode.c), waiting as
 * spool_digest_lock_wait; its descriptor, or -1 */
int spool_digest_modes(const char *dir, int exclusive);
int spool_digest_counter_read(
    const char *dir, const char *file, struct spool_digest_counter *c);
int spool_digest_lists(const char *spool,
    int (*fn)(void *arg, const char *domain, const char *list), void *arg);
int spool_state_lists(const char *spool, const char *sub,
    int (*fn)(void *arg, const char *domain, const char *list), void *arg);
int spool_digest_pending(const char *dir);
int spool_digest_prepare(const char *dir, const struct spool_digest_counter *c,
    const struct spool_digest_entry *e, size_t n,
    const struct spool_digest_kind *k, size_t nk);
int spool_digest_finish(const char *spool, const char *dir, const char *domain,
    const char *list, int *sent);

#endif
