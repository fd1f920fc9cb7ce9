/*
 * archive_tpages.c - a thread's pages.  A thread is shown
 * ARCHIVE_THREAD_PAGE posts a page, in arrival order: page 1 is
 * t/<id>.html, page k t/<id>-<k>.html, each the tree of its posts (a
 * reply whose parent is on an earlier page starts a tree), with links
 * to the pages before and after it.  A new post goes on the last page
 * or starts one, so a post's page (where its own page links) stays
 * where it is as the thread grows, and a new post writes one page (two
 * when it starts one: the page before gains its "later" link); only a
 * thread merged into this one (archive_thread.c) moves posts between
 * pages, and all its pages are then written.  A thread merged into
 * another, or a page past the thread's end, leaves a page that links
 * to the thread's first.
 */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_db.h"
#include "archive_html.h"
#include "archive_pages.h"
#include "archive_tree.h"
#include "archive_write.h"
#include "log.h"

/* archive_tpage_rel - the file of page k of thread id */
static void
archive_tpage_rel(char *buf, size_t len, long long id, long long k)
{
	if (k <= 1)
		snprintf(buf, len, "t/%lld.html", id);
	else
		snprintf(buf, len, "t/%lld-%lld.html", id, k);
}

/* archive_tpage_href - an href to page k of thread id from t/ (prefix:
 * "" on a thread page, "../../t/" on a post's) */
void
archive_tpage_href(FILE *fp, const char *prefix, long long id, long long k)
{
	if (k <= 1)
		fprintf(fp, "%s%lld.html", prefix, id);
	else
		fprintf(fp, "%s%lld-%lld.html", prefix, id, k);
}

/* archive_tpage_nav - the links to the pages before and after */
static void
archive_tpage_nav(FILE *fp, long long id, long long k, int more)
{
	if (k <= 1 && !more)
		return;
	fputs("<nav class=\"pager\">", fp);
	if (k > 1) {
		fputs("<a rel=\"prev\" href=\"", fp);
		archive_tpage_href(fp, "", id, k - 1);
		fputs("\">Earlier posts</a> ", fp);
	}
	if (more) {
		fputs("<a rel=\"next\" href=\"", fp);
		archive_tpage_href(fp, "", id, k + 1);
		fputs("\">Later posts</a>", fp);
	}
	fputs("</nav>\n", fp);
}

/* archive_tpage_write - page k of thread id: rows its posts (n of
 * them), more when posts follow; with n == 0, a page that links to
 * thread into's first page */
static int
archive_tpage_write(struct archive_list *al, long long id, long long k,
    const struct archive_row *rows, size_t n, int more, long long into)
{
	struct archive_page pg;
	char rel[64], *title = NULL;
	sqlite3_stmt *st;

	archive_tpage_rel(rel, sizeof(rel), id, k);
	if (n > 0 &&
	    (st = archive_db_q(al->db, "SELECT subject FROM msg WHERE id = ?",
		 "i", rows[0].thread)) != NULL) {
		if (sqlite3_step(st) == SQLITE_ROW)
			title = strdup(archive_db_text(st, 0));
		sqlite3_reset(st);
	}
	if ((al->bulk ? archive_write_open_new : archive_write_open)(
		&pg, al->www, rel, ARCHIVE_PAGE_MODE(al)) == -1) {
		log_warn("%s@%s: %s", al->list, al->domain, rel);
		free(title);
		return -1;
	}
	archive_html_head(pg.fp,
	    title ? title
	    : n	  ? rows[0].subject
		  : "Thread",
	    al->list, "../");
	if (n == 0) {
		fprintf(pg.fp,
		    "<h1>%s</h1>\n<p><a href=\"%lld.html\">Read the whole "
		    "thread</a></p>\n",
		    into == id ? "The thread's posts are on its other pages"
			       : "This thread has joined another",
		    into);
	} else {
		fputs("<h1>", pg.fp);
		html_str(pg.fp, title ? title : rows[0].subject);
		fprintf(pg.fp,
		    "</h1>\n<p class=\"meta\">Posts %lld to %lld</p>\n",
		    (k - 1) * ARCHIVE_THREAD_PAGE + 1,
		    (k - 1) * ARCHIVE_THREAD_PAGE + (long long)n);
		archive_tpage_nav(pg.fp, id, k, more);
		(void)archive_tree_show(pg.fp, rows, n, "../");
		archive_tpage_nav(pg.fp, id, k, more);
	}
	archive_html_foot(pg.fp, "../");
	free(title);
	return archive_write_close(&pg);
}

/* archive_tpage_rest - pages from k on that are there but past the
 * thread's end: each a link to thread into */
static int
archive_tpage_rest(
    struct archive_list *al, long long id, long long k, long long into)
{
	char rel[64], path[PATH_MAX + 64];
	struct stat sb;

	for (;; k++) {
		archive_tpage_rel(rel, sizeof(rel), id, k);
		snprintf(path, sizeof(path), "%s/%s", al->www, rel);
		if (lstat(path, &sb) == -1)
			return 0;
		if (archive_tpage_write(al, id, k, NULL, 0, 0, into) == -1)
			return -1;
	}
}

/* archive_page_tpage - page k of thread id */
int
archive_page_tpage(struct archive_list *al, long long id, long long k)
{
	struct archive_row *rows;
	sqlite3_stmt *st;
	size_t n;
	int r;

	if (k < 1)
		return 0;
	if ((st = archive_db_q(al->db,
		 "SELECT " ARCHIVE_ROW_COLS " FROM msg WHERE thread = ? "
		 "ORDER BY id LIMIT ? OFFSET ?",
		 "iii", id, (long long)ARCHIVE_THREAD_PAGE + 1,
		 (k - 1) * ARCHIVE_THREAD_PAGE)) == NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		return -1;
	if (n == 0) {
		free(rows);
		return archive_page_thread(al, id); /* moved: all of it */
	}
	r = archive_tpage_write(al, id, k, rows,
	    n > ARCHIVE_THREAD_PAGE ? ARCHIVE_THREAD_PAGE : n,
	    n > ARCHIVE_THREAD_PAGE, 0);
	archive_rows_free(rows, n);
	return r;
}

/* archive_page_thread - every page of thread id, or links to the
 * thread it joined */
int
archive_page_thread(struct archive_list *al, long long id)
{
	struct archive_row *rows;
	long long into, k;
	sqlite3_stmt *st;
	size_t n, i, c;
	int r = 0;

	if ((st = archive_db_q(al->db,
		 "SELECT " ARCHIVE_ROW_COLS " FROM msg WHERE thread = ? "
		 "ORDER BY id",
		 "i", id)) == NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		return -1;
	if (n == 0) {
		free(rows);
		if ((r = archive_db_int(al->db, &into,
			 "SELECT new FROM tmoved WHERE old = ?", "i", id)) != 1)
			return r;
		return archive_tpage_write(al, id, 1, NULL, 0, 0, into) == -1
			   ? -1
			   : archive_tpage_rest(al, id, 2, into);
	}
	for (i = 0, k = 1; r == 0 && i < n; i += c, k++) {
		c = n - i > ARCHIVE_THREAD_PAGE ? ARCHIVE_THREAD_PAGE : n - i;
		r = archive_tpage_write(al, id, k, rows + i, c, i + c < n, 0);
	}
	archive_rows_free(rows, n);
	return r == -1 ? -1 : archive_tpage_rest(al, id, k, id);
}

/* archive_tpage_of - the page of thread where post id is: 1.. or -1;
 * *first (when not NULL) 1 when it is the page's first post */
long long
archive_tpage_of(
    struct archive_list *al, long long thread, long long id, int *first)
{
	long long ord;

	if (archive_db_int(al->db, &ord,
		"SELECT count(*) FROM msg WHERE thread = ? AND id <= ?", "ii",
		thread, id) != 1)
		return -1;
	if (ord < 1)
		ord = 1;
	if (first != NULL)
		*first = (ord - 1) % ARCHIVE_THREAD_PAGE == 0;
	return (ord - 1) / ARCHIVE_THREAD_PAGE + 1;
}
