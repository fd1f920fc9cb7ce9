/*
 * archive_import.h - old posts into a list's archive
 * (archive_import.c): an mbox (Mailman 2's, any mboxo or mboxrd), a
 * maildir, or a directory of one post a file (mlmmj's archive/).
 */
#ifndef MJQ_ARCHIVE_IMPORT_H
#define MJQ_ARCHIVE_IMPORT_H

#include "archive_list.h"

/* archive_import - every post of path into the index (a post already
 * there, by its text, is skipped), then the pages written (index_only:
 * left marked dirty for the next run or rebuild); progress on stderr
 * when it is a terminal; the posts stored, or -1 */
long archive_import(struct archive_list *al, const char *path, int index_only);

#endif
