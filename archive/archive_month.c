/*
 * archive_month.c - the list's index (a month's pages:
 * archive_mpages.c).
 *
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
		archive_write_abort(&pg);
		return -1;
	}
	return archive_write_close(&pg);
}
