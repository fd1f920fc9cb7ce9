/*
 * spool_archive.h - a list's archive inbox in the spool
 * (spool_archive.c): $spool/state/archive/<domain>/<list>/ holds
 *
 *     lock      flock: one mj_archive drains the inbox at a time
 *     posts/    the posts accepted and not yet in the archive's index,
 *               one file each, named as the digest's (spool_digest.h)
 *
 * The runner collects a post here (A1, spool-layout/README "Archive");
 * mj_archive stores it in the list's archive and then removes it (A3).
 * The listing, reading and lock are the digest collection's own
 * functions on this directory (spool_digest_entries, spool_digest_read,
 * spool_digest_lock).
 */
#ifndef MJQ_SPOOL_ARCHIVE_H
#define MJQ_SPOOL_ARCHIVE_H

#include <stddef.h>

#include "spool_digest.h"

#define SPOOL_ARCHIVE "archive" /* under state/ */

int spool_archive_dir(char *buf, size_t len, const char *spool,
    const char *domain, const char *list);
int spool_archive_collect(const char *spool, const char *domain,
    const char *list, int dprio, int lprio, const char *qname, const char *text,
    size_t len);
int spool_archive_lock(const char *spool, const char *domain, const char *list,
    char *dir, size_t dirlen);
int spool_archive_done(const char *dir, const char *entry);
int spool_archive_sync(const char *dir);
int spool_archive_lists(const char *spool,
    int (*fn)(void *arg, const char *domain, const char *list), void *arg);

#endif
