/*
 * archive_pages.c - a post's page and a thread's page.  A post's page
 * is at msg/<name>/index.html, <name> the archive name of its
 * Message-ID (lists/archive_url.c), which is where its Archived-At
 * points; its attachments beside it as att-<n>.bin, each written once
 * (again only when its file is gone or of another length).  A thread's
 * pages: archive_tpages.c.
 */
#include <sys/stat.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_body.h"
#include "archive_db.h"
#include "archive_html.h"
#include "archive_pages.h"
#include "archive_tree.h"
#include "archive_write.h"
#include "log.h"

/* What a post's page needs while its parts are shown. */
struct archive_msg_ctx {
	struct archive_list *al;
	FILE *fp;
	const char *name;
	int natt;
	int text_shown;
};

/* archive_msg_text - archive_body_each's callback: a text part shown,
 * an attachment written beside the page and counted */
static int
archive_msg_text(void *arg, const struct archive_body_part *bp)
{
	struct archive_msg_ctx *c = arg;
	char rel[PATH_MAX], path[PATH_MAX * 2];
	struct stat sb;

	if (bp->kind == ARCHIVE_BODY_TEXT) {
		if (bp->from_html)
			fputs("<p class=\"meta\">(shown as text from its "
			      "HTML)</p>\n",
			    c->fp);
		archive_html_text(c->fp, bp->data, bp->len);
		c->text_shown = 1;
		return 0;
	}
	snprintf(rel, sizeof(rel), "msg/%s/att-%d.bin", c->name, bp->n);
	c->natt++;
	/* written once: a post's parts never change, and its page is
	 * written again whenever its thread does */
	if (snprintf(path, sizeof(path), "%s/%s", c->al->www, rel) <
		(int)sizeof(path) &&
	    lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (size_t)sb.st_size == bp->len)
		return 0;
	if (archive_write_file(c->al->www, rel, bp->data, bp->len,
		ARCHIVE_PAGE_MODE(c->al)) == -1) {
		log_warn("%s@%s: %s", c->al->list, c->al->domain, rel);
		return -1;
	}
	return 0;
}

/* archive_msg_att - archive_body_each's callback: an attachment listed */
static int
archive_msg_att(void *arg, const struct archive_body_part *bp)
{
	FILE *fp = arg;

	if (bp->kind != ARCHIVE_BODY_ATTACHMENT)
		return 0;
	fprintf(fp, "<li><a href=\"att-%d.bin\" download=\"", bp->n);
	html_str(fp, bp->name[0] ? bp->name : "attachment");
	fputs("\">", fp);
	html_str(fp, bp->name[0] ? bp->name : "(no name)");
	fputs("</a> <span class=\"n\">", fp);
	html_str(fp, bp->type);
	fprintf(fp, ", %zu bytes</span></li>\n", bp->len);
	return 0;
}

/* A post's row, copied out of its statement. */
struct archive_msg_row {
	char name[ARCHIVE_NAME_MAX + 1], month[8];
	char *subject, *from_name, *from_addr, *msgid, *raw;
	size_t rawlen;
	long long date, parent, thread;
	int removed; /* taken out (mj_archive remove): no text shown */
};

/* archive_msg_row_free - its strings */
static void
archive_msg_row_free(struct archive_msg_row *m)
{
	free(m->subject);
	free(m->from_name);
	free(m->from_addr);
	free(m->msgid);
	free(m->raw);
}

/* archive_msg_row_read - the post id into m; 1, 0 when it is not
 * there, -1 */
static int
archive_msg_row_read(sqlite3 *db, long long id, struct archive_msg_row *m)
{
	sqlite3_stmt *st;
	int k;

	memset(m, 0, sizeof(*m));
	if ((st = archive_db_q(db,
		 "SELECT name, subject, from_name, from_addr, date, msgid, "
		 "raw, parent, thread, month, removed FROM msg LEFT JOIN raw "
		 "USING(id) WHERE id = ?",
		 "i", id)) == NULL)
		return -1;
	if ((k = sqlite3_step(st)) != SQLITE_ROW) {
		sqlite3_reset(st);
		return k == SQLITE_DONE ? 0 : -1;
	}
	snprintf(m->name, sizeof(m->name), "%s", archive_db_text(st, 0));
	snprintf(m->month, sizeof(m->month), "%s", archive_db_text(st, 9));
	m->subject = strdup(archive_db_text(st, 1));
	m->from_name = strdup(archive_db_text(st, 2));
	m->from_addr = strdup(archive_db_text(st, 3));
	m->date = sqlite3_column_int64(st, 4);
	m->msgid = strdup(archive_db_text(st, 5));
	m->rawlen = (size_t)sqlite3_column_bytes(st, 6);
	if ((m->raw = malloc(m->rawlen + 1)) != NULL) {
		if (m->rawlen > 0)
			memcpy(m->raw, sqlite3_column_blob(st, 6), m->rawlen);
		m->raw[m->rawlen] = '\0';
	}
	m->parent = sqlite3_column_int64(st, 7);
	m->thread = sqlite3_column_int64(st, 8);
	m->removed = sqlite3_column_int64(st, 10) != 0;
	sqlite3_reset(st);
	if (m->subject == NULL || m->from_name == NULL ||
	    m->from_addr == NULL || m->msgid == NULL || m->raw == NULL) {
		archive_msg_row_free(m);
		return -1;
	}
	return 1;
}

/* archive_msg_meta - the post's header as a description list */
static void
archive_msg_meta(FILE *fp, const struct archive_msg_row *m)
{
	fputs("<dl class=\"meta\"><dt>From</dt><dd>", fp);
	html_str(fp, m->from_name);
	if (m->from_addr[0] != '\0') {
		fputs(" &lt;", fp);
		archive_html_addr(fp, m->from_addr);
		fputs("&gt;", fp);
	}
	fputs("</dd><dt>Date</dt><dd>", fp);
	archive_html_date(fp, (time_t)m->date);
	fputs("</dd><dt>Message-ID</dt><dd>", fp);
	html_str(fp, m->msgid);
	fputs("</dd>", fp);
}

/* archive_msg_related - its parent, thread and month (the end of the
 * description list) */
static void
archive_msg_related(struct archive_list *al, FILE *fp, long long id,
    long long parent, long long thread, const char *month)
{
	struct archive_row *rows;
	size_t n;
	long long total = 0;
	sqlite3_stmt *st;

	if (parent != 0 &&
	    (st = archive_db_q(al->db,
		 "SELECT " ARCHIVE_ROW_COLS " FROM msg WHERE id = ?", "i",
		 parent)) != NULL &&
	    archive_rows_read(st, &rows, &n) == 0) {
		if (n == 1) {
			fputs("<dt>In reply to</dt><dd>", fp);
			archive_tree_item(fp, &rows[0], "../../");
			fputs("</dd>", fp);
		}
		archive_rows_free(rows, n);
	}
	(void)archive_db_int(al->db, &total,
	    "SELECT count(*) FROM msg WHERE thread = ?", "i", thread);
	/* the thread's page with this post on it */
	fputs("<dt>Thread</dt><dd><a href=\"", fp);
	archive_tpage_href(
	    fp, "../../t/", thread, archive_tpage_of(al, thread, id, NULL));
	fprintf(fp,
	    "\">%lld post%s</a></dd><dt>Month</dt><dd><a "
	    "href=\"../../%s/index.html\">%s</a></dd></dl>\n",
	    total, total == 1 ? "" : "s", month, month);
}

/* archive_msg_replies - its replies, at most max_replies */
static void
archive_msg_replies(
    struct archive_list *al, FILE *fp, long long id, long long thread)
{
	struct archive_row *rows;
	sqlite3_stmt *st;
	size_t n, i;

	if ((st = archive_db_q(al->db,
		 "SELECT " ARCHIVE_ROW_COLS " FROM msg WHERE parent = ? "
		 "ORDER BY date, id LIMIT ?",
		 "ii", id, al->as->archive_max_replies)) == NULL ||
	    archive_rows_read(st, &rows, &n) == -1)
		return;
	if (n > 0) {
		fputs("<section><h2>Replies</h2><ul class=\"posts\">\n", fp);
		for (i = 0; i < n; i++) {
			fputs("<li>", fp);
			archive_tree_item(fp, &rows[i], "../../");
			fputs("</li>\n", fp);
		}
		if ((long long)n == al->as->archive_max_replies)
			fprintf(fp,
			    "<li><a href=\"../../t/%lld.html\">All replies "
			    "in the thread</a></li>\n",
			    thread);
		fputs("</ul></section>\n", fp);
	}
	archive_rows_free(rows, n);
}

/* archive_page_msg - msg/<name>/index.html and its attachments */
int
archive_page_msg(struct archive_list *al, long long id)
{
	struct archive_msg_ctx c;
	struct archive_msg_row m;
	struct archive_page pg;
	char rel[PATH_MAX];
	int k;

	if ((k = archive_msg_row_read(al->db, id, &m)) != 1)
		return k; /* 0: gone */
	snprintf(rel, sizeof(rel), "msg/%s/index.html", m.name);
	if ((al->bulk ? archive_write_open_new : archive_write_open)(
		&pg, al->www, rel, ARCHIVE_PAGE_MODE(al)) == -1) {
		log_warn("%s@%s: %s", al->list, al->domain, rel);
		archive_msg_row_free(&m);
		return -1;
	}
	archive_html_head(pg.fp, m.subject, al->list, "../../");
	fputs("<article>\n<h1>", pg.fp);
	html_str(pg.fp, m.subject);
	fputs("</h1>\n", pg.fp);
	if (m.removed) {
		fputs("<p class=\"removed\">This post was removed from the "
		      "archive.</p>\n<dl class=\"meta\">",
		    pg.fp);
		archive_msg_related(al, pg.fp, id, m.parent, m.thread, m.month);
		fputs("</article>\n", pg.fp);
		archive_msg_replies(al, pg.fp, id, m.thread);
		archive_html_foot(pg.fp, "../../");
		archive_msg_row_free(&m);
		return archive_write_close(&pg);
	}
	archive_msg_meta(pg.fp, &m);
	archive_msg_related(al, pg.fp, id, m.parent, m.thread, m.month);
	memset(&c, 0, sizeof(c));
	c.al = al;
	c.fp = pg.fp;
	c.name = m.name;
	k = archive_body_each(m.raw, m.rawlen, archive_msg_text, &c);
	if (k == 0 && c.natt > 0) {
		fputs(
		    "<section><h2>Attachments</h2><ul class=\"att\">\n", pg.fp);
		k = archive_body_each(m.raw, m.rawlen, archive_msg_att, pg.fp);
		fputs("</ul></section>\n", pg.fp);
	}
	fputs("</article>\n", pg.fp);
	archive_msg_replies(al, pg.fp, id, m.thread);
	archive_html_foot(pg.fp, "../../");
	archive_msg_row_free(&m);
	if (k != 0) {
		archive_write_abort(&pg);
		return -1;
	}
	return archive_write_close(&pg);
}
