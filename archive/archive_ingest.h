/*
 * archive_ingest.h - posts into a list's archive (archive_ingest.c):
 * the inbox drained (A2, A3 of archive/README) and its pages written
 * (A4).
 */
#ifndef MJQ_ARCHIVE_INGEST_H
#define MJQ_ARCHIVE_INGEST_H

#include <stddef.h>
#include <time.h>

#include "archive_list.h"

/* archive_ingest_add - one post (text, len bytes) into the index under
 * the identity entry, with the pages it changes marked dirty, in a
 * transaction of up to a batch of posts left open; 1 stored, 0 it was
 * already, -1 error (the open transaction rolled back) */
int archive_ingest_add(struct archive_list *al, const char *entry,
    const char *text, size_t len, time_t now);
/* archive_ingest_end - the open transaction committed (ok) or rolled
 * back; 0 or -1 */
int archive_ingest_end(struct archive_list *al, int ok);
/* archive_ingest_run - the list's inbox drained and the pages written
 * (al opened: its lock held); the posts stored, or -1 */
long archive_ingest_run(struct archive_list *al);

#endif
