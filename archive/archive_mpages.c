/*
 * archive_mpages.c - a month's pages, each of a bounded size:
 *
 *     <YYYY-MM>/index.html, index-<k>.html   by thread: ARCHIVE_MONTH_
 *         THREADS threads a page, in the order of their first post of
 *         the month, each the tree of up to ARCHIVE_MONTH_SHOWN of its
 *         posts of the month (then a link to the thread's page)
 *     <YYYY-MM>/date.html, date-<k>.html     by date: ARCHIVE_MONTH_POSTS
 *         posts a page, in arrival order
 *
 * Pages run in arrival order, so a new post changes one page of each
 * view (its own, or the page its thread is on), and the page before
 * when it starts one (its "later" link): the dirty keys mpage:<month>:
 * d:<k> and mpage:<month>:t:<k>; month:<month> writes them all.
 */
#include <limits.h>
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

#define ARCHIVE_MONTH_POSTS 500	  /* posts a page by date */
#define ARCHIVE_MONTH_THREADS 100 /* threads a page by thread */
#define ARCHIVE_MONTH_SHOWN 20	  /* posts of a thread on it */

/* archive_mpage_href - the file of page k of a view ('t' or 'd') */
static void
archive_mpage_href(FILE *fp, char view, long long k)
{
	const char *base = view == 't' ? "index" : "date";

	if (k <= 1)
		fprintf(fp, "%s.html", base);
	else
		fprintf(fp, "%s-%lld.html", base, k);
}

/* archive_mpage_nav - the links between the views and the pages */
static void
archive_mpage_nav(FILE *fp, const char *month, char view, long long k, int more)
{
	fprintf(fp,
	    "<nav class=\"pager\"><a href=\"index.html\">By thread</a> "
	    "<a href=\"date.html\">By date</a> <a href=\"%s.mbox\">Download "
	    "(mbox)</a>",
	    month);
	if (k > 1) {
		fputs(" <a rel=\"prev\" href=\"", fp);
		archive_mpage_href(fp, view, k - 1);
		fputs("\">Earlier</a>", fp);
	}
	if (more) {
		fputs(" <a rel=\"next\" href=\"", fp);
		archive_mpage_href(fp, view, k + 1);
		fputs("\">Later</a>", fp);
	}
	fputs("</nav>\n", fp);
}

/* archive_mpage_open - page k of a view begun: its head and nav */
static int
archive_mpage_open(struct archive_list *al, struct archive_page *pg,
    const char *month, char view, long long k, int more)
{
	char rel[64];

	if (k <= 1)
		snprintf(rel, sizeof(rel), "%s/%s.html", month,
		    view == 't' ? "index" : "date");
	else
		snprintf(rel, sizeof(rel), "%s/%s-%lld.html", month,
		    view == 't' ? "index" : "date", k);
	if (archive_write_open(pg, al->www, rel, ARCHIVE_PAGE_MODE(al)) == -1) {
		log_warn("%s@%s: %s", al->list, al->domain, rel);
		return -1;
	}
	archive_html_head(pg->fp, month, al->list, "../");
	fprintf(pg->fp, "<h1>%s</h1>\n", month);
	archive_mpage_nav(pg->fp, month, view, k, more);
	return 0;
}

/* archive_mpage_date - page k by date, its rows given (n, more after) */
static int
archive_mpage_date(struct archive_list *al, const char *month, long long k,
    const struct archive_row *rows, size_t n, int more)
{
	struct archive_page pg;
	size_t i;

	if (archive_mpage_open(al, &pg, month, 'd', k, more) == -1)
		return -1;
	fputs("<ul class=\"posts\">\n", pg.fp);
	for (i = 0; i < n; i++) {
		fputs("<li>", pg.fp);
		archive_tree_item(pg.fp, &rows[i], "../");
		fputs("</li>\n", pg.fp);
	}
	fputs("</ul>\n", pg.fp);
	archive_mpage_nav(pg.fp, month, 'd', k, more);
	archive_html_foot(pg.fp, "../");
	return archive_write_close(&pg);
}

/* The month's posts in arrival order; its threads in the order of
 * their first post of the month. */
static const char archive_mpage_posts_sql[] =
    "SELECT " ARCHIVE_ROW_COLS " FROM msg WHERE month = ?1 AND id >= "
    "(SELECT id FROM msg WHERE month = ?1 ORDER BY id LIMIT 1 OFFSET ?3) "
    "ORDER BY id LIMIT ?2";
static const char archive_mpage_threads_sql[] =
    "SELECT thread FROM msg WHERE month = ? GROUP BY thread ORDER BY "
    "min(id) LIMIT ? OFFSET ?";

/* archive_mpage_thread_one - a thread's posts of the month as a tree */
static int
archive_mpage_thread_one(
    struct archive_list *al, FILE *fp, const char *month, long long thread)
{
	struct archive_row *rows;
	sqlite3_stmt *st;
	long long total = 0;
	size_t n;

	if ((st = archive_db_q(al->db,
		 "SELECT " ARCHIVE_ROW_COLS " FROM msg WHERE thread = ? AND "
		 "month = ? ORDER BY id LIMIT ?",
		 "iti", thread, month, (long long)ARCHIVE_MONTH_SHOWN)) ==
		NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		return -1;
	(void)archive_tree_show(fp, rows, n, "../");
	archive_rows_free(rows, n);
	if (n == ARCHIVE_MONTH_SHOWN &&
	    archive_db_int(al->db, &total,
		"SELECT count(*) FROM msg WHERE thread = ? AND month = ?", "it",
		thread, month) == 1 &&
	    total > (long long)n)
		fprintf(fp,
		    "<p class=\"meta\"><a href=\"../t/%lld.html\">%lld more "
		    "post%s this month in the thread</a></p>\n",
		    thread, total - (long long)n,
		    total - (long long)n == 1 ? "" : "s");
	return 0;
}

/* archive_mpage_threads - page k by thread */
static int
archive_mpage_threads(struct archive_list *al, const char *month, long long k)
{
	struct archive_page pg;
	long long *th = NULL, *nv;
	sqlite3_stmt *st;
	size_t n = 0, i;
	int r = 0, more, e;

	if ((st = archive_db_q(al->db, archive_mpage_threads_sql, "tii", month,
		 (long long)ARCHIVE_MONTH_THREADS + 1,
		 (k - 1) * ARCHIVE_MONTH_THREADS)) == NULL)
		return -1;
	while ((e = sqlite3_step(st)) == SQLITE_ROW) {
		if ((nv = reallocarray(th, n + 1, sizeof(*th))) == NULL)
			break;
		th = nv;
		th[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	if (e != SQLITE_DONE || (n == 0 && k > 1)) {
		free(th);
		return e != SQLITE_DONE ? -1 : 0;
	}
	if ((more = n > ARCHIVE_MONTH_THREADS))
		n = ARCHIVE_MONTH_THREADS;
	if (archive_mpage_open(al, &pg, month, 't', k, more) == -1) {
		free(th);
		return -1;
	}
	for (i = 0; r == 0 && i < n; i++)
		r = archive_mpage_thread_one(al, pg.fp, month, th[i]);
	free(th);
	archive_mpage_nav(pg.fp, month, 't', k, more);
	archive_html_foot(pg.fp, "../");
	if (r == -1) {
		archive_write_abort(&pg);
		return -1;
	}
	return archive_write_close(&pg);
}

/* archive_page_mpage - page k of a view of the month */
int
archive_page_mpage(
    struct archive_list *al, const char *month, char view, long long k)
{
	struct archive_row *rows;
	sqlite3_stmt *st;
	size_t n;
	int r;

	if (!archive_month_ok(month) || k < 1)
		return 0;
	if (view == 't')
		return archive_mpage_threads(al, month, k);
	if ((st = archive_db_q(al->db, archive_mpage_posts_sql, "tii", month,
		 (long long)ARCHIVE_MONTH_POSTS + 1,
		 (k - 1) * ARCHIVE_MONTH_POSTS)) == NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		return -1;
	r = n == 0 && k > 1
		? 0
		: archive_mpage_date(al, month, k, rows,
		      n > ARCHIVE_MONTH_POSTS ? ARCHIVE_MONTH_POSTS : n,
		      n > ARCHIVE_MONTH_POSTS);
	archive_rows_free(rows, n);
	return r;
}

/* archive_page_month - every page of the month's two views */
int
archive_page_month(struct archive_list *al, const char *month)
{
	struct archive_row *rows;
	sqlite3_stmt *st;
	long long k, threads = 0;
	char rel[PATH_MAX];
	size_t n, i, c;
	int r = 0;

	if (!archive_month_ok(month))
		return 0;
	/* by date: one read, cut into pages */
	if ((st = archive_db_q(al->db, archive_mpage_posts_sql, "tii", month,
		 (long long)-1, 0LL)) == NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		return -1;
	for (i = 0, k = 1; r == 0 && (i < n || k == 1); i += c, k++) {
		c = n - i > ARCHIVE_MONTH_POSTS ? ARCHIVE_MONTH_POSTS : n - i;
		r = archive_mpage_date(al, month, k, rows + i, c, i + c < n);
	}
	archive_rows_free(rows, n);
	if (r == -1 || archive_db_int(al->db, &threads,
			   "SELECT count(DISTINCT thread) FROM msg WHERE "
			   "month = ?",
			   "t", month) != 1)
		return -1;
	for (k = 1;
	     r == 0 && (k == 1 || (k - 1) * ARCHIVE_MONTH_THREADS < threads);
	     k++)
		r = archive_mpage_threads(al, month, k);
	/* fewer threads than before (some joined others): the pages past
	 * the end go */
	for (; r == 0; k++) {
		if (snprintf(rel, sizeof(rel), "%s/%s/index-%lld.html", al->www,
			month, k) >= (int)sizeof(rel) ||
		    unlink(rel) == -1)
			break;
	}
	return r;
}

/* archive_mpage_of - the pages of the month post id (of thread) is on:
 * *date and *thread (1..), each negated when the post starts it */
int
archive_mpage_of(struct archive_list *al, const char *month, long long id,
    long long thread, long long *date, long long *tpage)
{
	long long ord, rank, first;

	if (archive_db_int(al->db, &ord,
		"SELECT count(*) FROM msg WHERE month = ? AND id <= ?", "ti",
		month, id) != 1 ||
	    archive_db_int(al->db, &first,
		"SELECT min(id) FROM msg WHERE month = ? AND thread = ?", "ti",
		month, thread) != 1 ||
	    archive_db_int(al->db, &rank,
		"SELECT count(*) FROM (SELECT min(id) f FROM msg WHERE month = "
		"? GROUP BY thread) WHERE f <= ?",
		"ti", month, first) != 1)
		return -1;
	if (ord < 1)
		ord = 1;
	if (rank < 1)
		rank = 1;
	*date = (ord - 1) / ARCHIVE_MONTH_POSTS + 1;
	if ((ord - 1) % ARCHIVE_MONTH_POSTS == 0)
		*date = -*date;
	*tpage = (rank - 1) / ARCHIVE_MONTH_THREADS + 1;
	if (first == id && (rank - 1) % ARCHIVE_MONTH_THREADS == 0)
		*tpage = -*tpage;
	return 0;
}
