/*
 * archive_search.h - a search over a list's archive (archive_search.c):
 * the reader's words made an FTS5 query, its results as a page.
 */
#ifndef MJQ_ARCHIVE_SEARCH_H
#define MJQ_ARCHIVE_SEARCH_H

#include <stdio.h>
#include <time.h>

#include "archive_list.h"

#define ARCHIVE_SEARCH_MAX 256	   /* bytes of a query */
#define ARCHIVE_SEARCH_TERMS 16	   /* terms of a query */
#define ARCHIVE_SEARCH_PAGE 50	   /* results a page */
#define ARCHIVE_SEARCH_RANKED 2000 /* matches ranked; more: newest first */

/* A query, parsed: an FTS5 expression (every term quoted, so the
 * reader's text is never FTS5 syntax) and a date range. */
struct archive_query {
	char match[4 * ARCHIVE_SEARCH_MAX + 64]; /* "" for none */
	long long after, before;		 /* [after, before) */
	size_t nterms;				 /* its terms in match: */
	unsigned short at[ARCHIVE_SEARCH_TERMS], len[ARCHIVE_SEARCH_TERMS];
};

/* archive_search_page - the results page of text (offset: the first
 * result shown) on fp, links under the list's archive_url; 0 or -1 */
int archive_search_page(
    struct archive_list *al, FILE *fp, const char *text, long long offset);

#endif
