/*
 * archive_pages.h - the pages of a list's archive, each made from the
 * index (archive_pages.c: a post, a thread; archive_month.c: a month,
 * the list's index; archive_feed.c: the feed; archive_mbox.c: a
 * month's mbox, appended to), and the
 * run that writes the pages marked dirty (A4 of archive/README).
 */
#ifndef MJQ_ARCHIVE_PAGES_H
#define MJQ_ARCHIVE_PAGES_H

#include <stdio.h>

#include "archive_list.h"

#define ARCHIVE_PAGE_MODE(al) ((al)->lc.archive_public ? 0644 : 0640)
/* Posts on a thread's page: fixed, so that a post's page number (its
 * address in the thread) never changes as the thread grows. */
#define ARCHIVE_THREAD_PAGE 100

int archive_page_msg(struct archive_list *al, long long id);
/* archive_page_thread - every page of a thread (archive_tpages.c) */
int archive_page_thread(struct archive_list *al, long long id);
/* archive_page_tpage - page k (1..) of a thread */
int archive_page_tpage(struct archive_list *al, long long id, long long k);
/* archive_tpage_of - the page of thread that post id is on: 1.., -1;
 * *first (unless NULL) set when the post is the page's first */
long long archive_tpage_of(
    struct archive_list *al, long long thread, long long id, int *first);
/* archive_tpage_href - the file of page k of thread id after prefix */
void archive_tpage_href(
    FILE *fp, const char *prefix, long long id, long long k);
/* archive_page_month - every page of a month, by thread and by date
 * (archive_mpages.c) */
int archive_page_month(struct archive_list *al, const char *month);
/* archive_page_mpage - page k of a month's view: 't' by thread, 'd' by
 * date */
int archive_page_mpage(
    struct archive_list *al, const char *month, char view, long long k);
/* archive_mpage_of - the pages of the month that post id of thread is
 * on, by date and by thread, each negative when the post starts it; 0
 * or -1 */
int archive_mpage_of(struct archive_list *al, const char *month, long long id,
    long long thread, long long *date, long long *tpage);
int archive_page_index(struct archive_list *al);
int archive_page_feed(struct archive_list *al);
/* archive_page_mbox - the month's mbox: the posts since the last
 * appended, or written whole when the file is not the one the index
 * recorded (archive_mbox.c); 0 or -1 */
int archive_page_mbox(struct archive_list *al, const char *month);
/* archive_month_ok - month is YYYY-MM: 1 or 0 */
int archive_month_ok(const char *month);
int archive_page_css(struct archive_list *al);
/* archive_pages_flush - every dirty page written, the file system
 * synced, the dirty rows cleared; the number of pages, or -1 */
long archive_pages_flush(struct archive_list *al);
/* archive_pages_all - every page of the archive marked dirty */
int archive_pages_all(struct archive_list *al);

#endif
