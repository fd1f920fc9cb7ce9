/*
 * archive_remove.h - a post taken out of a list's archive
 * (archive_remove.c), for a legal request or spam that got through.
 */
#ifndef MJQ_ARCHIVE_REMOVE_H
#define MJQ_ARCHIVE_REMOVE_H

#include "archive_list.h"

/* archive_remove - the post of Message-ID msgid (with or without <>)
 * out of the pages, the month's mbox, the feed and the search index,
 * its text and attachments deleted; a page that says so left at its
 * address; 1 removed, 0 no such post, -1 */
int archive_remove(struct archive_list *al, const char *msgid);

#endif
