/*
 * archive_feed.c - the Atom feed (RFC 4287) of the latest posts and
 * the stylesheet (a month's mbox: archive_mbox.c).  Text in the feed goes
 * through the same escaping as the pages (its entities are XML's too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archive_body.h"
#include "archive_db.h"
#include "archive_html.h"
#include "archive_pages.h"
#include "archive_write.h"
#include "log.h"

#define ARCHIVE_FEED_SUMMARY 600 /* bytes of a post's text in its entry */

/* archive_feed_time - t as RFC 3339 */
static void
archive_feed_time(FILE *fp, time_t t)
{
	char buf[32];
	struct tm tm;

	if (gmtime_r(&t, &tm) != NULL &&
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
		fputs(buf, fp);
}

/* archive_feed_base - the archive's URL (archive_url), escaped */
static void
archive_feed_base(FILE *fp, const struct archive_list *al)
{
	char base[1024];

	archive_list_base(al, base, sizeof(base));
	html_str(fp, base);
}

/* archive_feed_entry - one post of the feed (st: the row) */
static void
archive_feed_entry(FILE *fp, const struct archive_list *al, sqlite3_stmt *st)
{
	const char *raw = sqlite3_column_blob(st, 4);
	size_t len = (size_t)sqlite3_column_bytes(st, 4), tl;
	char *text = NULL;

	fputs("<entry>\n<title>", fp);
	html_str(fp, archive_db_text(st, 1));
	fputs("</title>\n<link href=\"", fp);
	archive_feed_base(fp, al);
	fputs("msg/", fp);
	html_str(fp, archive_db_text(st, 0));
	fputs("/index.html\"/>\n<id>urn:mjq:", fp);
	html_str(fp, al->list);
	fputs(":", fp);
	html_str(fp, archive_db_text(st, 0));
	fputs("</id>\n<updated>", fp);
	archive_feed_time(fp, (time_t)sqlite3_column_int64(st, 3));
	fputs("</updated>\n<author><name>", fp);
	html_str(fp, archive_db_text(st, 2));
	fputs("</name></author>\n<summary>", fp);
	if (raw != NULL && archive_body_text(raw, len, &text, &tl) == 0) {
		if (tl > ARCHIVE_FEED_SUMMARY)
			tl = ARCHIVE_FEED_SUMMARY; /* a cut sequence: U+FFFD */
		archive_html_plain(fp, text, tl);
		free(text);
	}
	fputs("</summary>\n</entry>\n", fp);
}

/* archive_page_feed - feed.atom */
int
archive_page_feed(struct archive_list *al)
{
	struct archive_page pg;
	sqlite3_stmt *st;
	long long last = 0;
	int k;

	(void)archive_db_int(al->db, &last, "SELECT max(date) FROM msg", "");
	if (archive_write_open(
		&pg, al->www, "feed.atom", ARCHIVE_PAGE_MODE(al)) == -1) {
		log_warn("%s@%s: feed.atom", al->list, al->domain);
		return -1;
	}
	fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	      "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>",
	    pg.fp);
	html_str(pg.fp, al->list);
	fputs("@", pg.fp);
	html_str(pg.fp, al->domain);
	fputs("</title>\n<id>urn:mjq:", pg.fp);
	html_str(pg.fp, al->list);
	fputs("@", pg.fp);
	html_str(pg.fp, al->domain);
	fputs("</id>\n<link href=\"", pg.fp);
	archive_feed_base(pg.fp, al);
	fputs("index.html\"/>\n<updated>", pg.fp);
	archive_feed_time(pg.fp, (time_t)last);
	fputs("</updated>\n", pg.fp);
	if ((st = archive_db_q(al->db,
		 "SELECT name, subject, from_name, date, raw FROM msg "
		 "JOIN raw USING(id) WHERE removed = 0 ORDER BY id DESC "
		 "LIMIT ?",
		 "i", al->as->archive_feed_entries)) == NULL)
		k = SQLITE_ERROR;
	else {
		while ((k = sqlite3_step(st)) == SQLITE_ROW)
			archive_feed_entry(pg.fp, al, st);
		sqlite3_reset(st);
	}
	fputs("</feed>\n", pg.fp);
	if (k != SQLITE_DONE) {
		archive_write_abort(&pg);
		return -1;
	}
	return archive_write_close(&pg);
}

/* archive_page_css - style.css */
int
archive_page_css(struct archive_list *al)
{
	return archive_write_file(al->www, "style.css", archive_html_css,
	    strlen(archive_html_css), ARCHIVE_PAGE_MODE(al));
}
