/*
 * archive_month.c - a month's two pages and the list's index.
 *
 *     <YYYY-MM>/index.html   the month by thread: each thread with posts
 *                            in the month, as a tree of those posts
 *     <YYYY-MM>/date.html    the month by date
 *     index.html             the months, newest first, with their
 *                            counts (the month table: no scan of posts),
 *                            and the latest posts
 */
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

#define ARCHIVE_INDEX_LATEST 15 /* posts listed on the index */

/* archive_month_ok - month is YYYY-MM (it names a directory) */
int
archive_month_ok(const char *m)
{
	return strlen(m) == 7 && strspn(m, "0123456789") == 4 && m[4] == '-' &&
	       strspn(m + 5, "0123456789") == 2;
}

/* archive_month_nav - the links between the month's views */
static void
archive_month_nav(FILE *fp, const char *month, size_t n)
{
	fprintf(fp,
	    "<h1>%s</h1>\n<p class=\"meta\">%zu post%s</p>\n"
	    "<nav class=\"pager\"><a href=\"index.html\">By thread</a> "
	    "<a href=\"date.html\">By date</a> <a href=\"%s.mbox\">Download "
	    "(mbox)</a></nav>\n",
	    month, n, n == 1 ? "" : "s", month);
}

/* archive_month_view - one view of the month, its rows given */
static int
archive_month_view(struct archive_list *al, const char *month, const char *file,
    const struct archive_row *rows, size_t n, int tree)
{
	struct archive_page pg;
	char rel[64];
	size_t i;

	snprintf(rel, sizeof(rel), "%s/%s", month, file);
	if (archive_write_open(&pg, al->www, rel, ARCHIVE_PAGE_MODE(al)) ==
	    -1) {
		log_warn("%s@%s: %s", al->list, al->domain, rel);
		return -1;
	}
	archive_html_head(pg.fp, month, al->list, "../");
	archive_month_nav(pg.fp, month, n);
	if (tree)
		(void)archive_tree_show(pg.fp, rows, n, "../");
	else {
		fputs("<ul class=\"posts\">\n", pg.fp);
		for (i = 0; i < n; i++) {
			fputs("<li>", pg.fp);
			archive_tree_item(pg.fp, &rows[i], "../");
			fputs("</li>\n", pg.fp);
		}
		fputs("</ul>\n", pg.fp);
	}
	archive_html_foot(pg.fp, "../");
	return archive_write_close(&pg);
}

/* archive_page_month - the month by thread and by date */
int
archive_page_month(struct archive_list *al, const char *month)
{
	struct archive_row *rows;
	sqlite3_stmt *st;
	size_t n;
	int r;

	if (!archive_month_ok(month))
		return 0;
	/* by thread: each thread's posts together, threads in the order
	 * of their first post this month */
	if ((st = archive_db_q(al->db,
		 "SELECT " ARCHIVE_ROW_COLS " FROM msg m WHERE month = ? "
		 "ORDER BY (SELECT min(date) FROM msg x WHERE x.thread = "
		 "m.thread AND x.month = m.month), thread, date, id",
		 "t", month)) == NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		return -1;
	r = archive_month_view(al, month, "index.html", rows, n, 1);
	archive_rows_free(rows, n);
	if (r == -1 ||
	    (st = archive_db_q(al->db,
		 "SELECT " ARCHIVE_ROW_COLS " FROM msg WHERE month = ? "
		 "ORDER BY date, id",
		 "t", month)) == NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		return -1;
	r = archive_month_view(al, month, "date.html", rows, n, 0);
	archive_rows_free(rows, n);
	return r;
}

/* archive_index_months - the months with their counts */
static int
archive_index_months(struct archive_list *al, FILE *fp)
{
	sqlite3_stmt *st;
	const char *m;
	int k;

	if ((st = archive_db_q(al->db,
		 "SELECT month, n FROM month ORDER BY month DESC", "")) == NULL)
		return -1;
	fputs("<section><h2>Months</h2><ul class=\"months\">\n", fp);
	while ((k = sqlite3_step(st)) == SQLITE_ROW) {
		m = archive_db_text(st, 0);
		if (!archive_month_ok(m))
			continue;
		fprintf(fp,
		    "<li><a href=\"%s/index.html\">%s</a> <span "
		    "class=\"n\">%lld post%s</span> &middot; <a "
		    "href=\"%s/date.html\">by date</a> &middot; <a "
		    "href=\"%s/%s.mbox\">mbox</a></li>\n",
		    m, m, (long long)sqlite3_column_int64(st, 1),
		    sqlite3_column_int64(st, 1) == 1 ? "" : "s", m, m, m);
	}
	sqlite3_reset(st);
	fputs("</ul></section>\n", fp);
	return k == SQLITE_DONE ? 0 : -1;
}

/* archive_page_index - index.html */
int
archive_page_index(struct archive_list *al)
{
	struct archive_row *rows;
	struct archive_page pg;
	sqlite3_stmt *st;
	size_t n, i;
	int r;

	if (archive_write_open(
		&pg, al->www, "index.html", ARCHIVE_PAGE_MODE(al)) == -1) {
		log_warn("%s@%s: index.html", al->list, al->domain);
		return -1;
	}
	archive_html_head(pg.fp, "Archive", al->list, "");
	fputs("<h1>", pg.fp);
	html_str(pg.fp, al->list);
	fputs("@", pg.fp);
	html_str(pg.fp, al->domain);
	fputs("</h1>\n", pg.fp);
	if (al->as->archive_search_url[0] != '\0') {
		fputs("<form method=\"get\" action=\"", pg.fp);
		html_str(pg.fp, al->as->archive_search_url);
		fputs("\"><input type=\"hidden\" name=\"l\" value=\"", pg.fp);
		html_str(pg.fp, al->list);
		fputs("@", pg.fp);
		html_str(pg.fp, al->domain);
		fputs("\"><input type=\"search\" id=\"q\" name=\"q\" "
		      "aria-label=\"Search the archive\"> "
		      "<button id=\"search\">Search</button></form>\n",
		    pg.fp);
	}
	r = 0;
	if ((st = archive_db_q(al->db,
		 "SELECT " ARCHIVE_ROW_COLS " FROM msg ORDER BY id DESC "
		 "LIMIT ?",
		 "i", (long long)ARCHIVE_INDEX_LATEST)) == NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		r = -1;
	else {
		fputs("<section><h2>Latest posts</h2><ul class=\"posts\">\n",
		    pg.fp);
		for (i = 0; i < n; i++) {
			fputs("<li>", pg.fp);
			archive_tree_item(pg.fp, &rows[i], "");
			fputs("</li>\n", pg.fp);
		}
		fputs("</ul></section>\n", pg.fp);
		archive_rows_free(rows, n);
	}
	if (r == 0)
		r = archive_index_months(al, pg.fp);
	archive_html_foot(pg.fp, "");
	if (r == -1) {
		(void)fclose(pg.fp);
		(void)unlink(pg.tmp);
		return -1;
	}
	return archive_write_close(&pg);
}
