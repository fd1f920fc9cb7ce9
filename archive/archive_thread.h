/*
 * archive_thread.h - where a post goes among the threads
 * (archive_thread.c), inside the transaction that stores it.
 */
#ifndef MJQ_ARCHIVE_THREAD_H
#define MJQ_ARCHIVE_THREAD_H

#include <sqlite3.h>

#include "archive_parse.h"

/* archive_thread_place - the parent and thread of a post not yet stored
 * (*parent 0: none; *thread 0: a thread of its own); 0 or -1 */
int archive_thread_place(sqlite3 *db, const struct archive_post *p,
    long long *parent, long long *thread);
/* archive_thread_adopt - the stored posts that reference the post id
 * (just stored, in thread) become its replies when it is nearer than
 * their parent, each with its subtree; pages marked dirty; 0 or -1 */
int archive_thread_adopt(
    sqlite3 *db, long long id, const char *msgid, long long thread);

#endif
