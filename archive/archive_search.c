/*
 * archive_search.c - the archive's search.  A query is the reader's
 * words: each word and each "phrase" must be there; from:x and
 * subject:x look in the author and the subject; after: and before: take
 * dates (YYYY-MM-DD, UTC).  Every term goes into the FTS5 expression as
 * a quoted string (its quotes doubled), so no text of the reader is
 * FTS5 syntax; the dates are bound parameters.  A query's work is
 * bounded: its length, its terms, its page of results, and SQLite's
 * progress handler, which stops a statement past ARCHIVE_SEARCH_STEPS
 * virtual machine steps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "archive_db.h"
#include "archive_html.h"
#include "archive_search.h"

#define ARCHIVE_SEARCH_STEPS 20000000 /* progress calls of 1000 steps */

/* archive_search_term - one term, quoted, into q->match */
static void
archive_search_term(
    struct archive_query *q, const char *column, const char *t, size_t n)
{
	size_t len = strlen(q->match), i;
	char *o = q->match + len, *end = q->match + sizeof(q->match) - 8;

	if (len > 0 && o < end) {
		memcpy(o, " AND ", 5);
		o += 5;
	}
	if (column != NULL && o + strlen(column) + 3 < end)
		o += sprintf(o, "%s : ", column);
	*o++ = '"';
	for (i = 0; i < n && o < end; i++) {
		if (t[i] == '"')
			*o++ = '"';
		*o++ = t[i];
	}
	*o++ = '"';
	*o = '\0';
}

/* archive_search_date - YYYY-MM-DD as the time of its start (UTC) */
static int
archive_search_date(const char *t, size_t n, long long *v)
{
	struct tm tm;
	int y, m, d;

	if (n != 10 || sscanf(t, "%4d-%2d-%2d", &y, &m, &d) != 3 || m < 1 ||
	    m > 12 || d < 1 || d > 31)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	*v = (long long)timegm(&tm);
	return 0;
}

/* archive_search_parse - the query's terms */
static int
archive_search_parse(
    const char *text, struct archive_query *q, const char **why)
{
	const char *p = text, *s, *col;
	size_t n;
	int terms = 0;

	memset(q, 0, sizeof(*q));
	q->before = (long long)1 << 62;
	if (strlen(text) > ARCHIVE_SEARCH_MAX) {
		*why = "the query is too long";
		return -1;
	}
	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (++terms > ARCHIVE_SEARCH_TERMS) {
			*why = "too many words";
			return -1;
		}
		col = NULL;
		if (strncasecmp(p, "from:", 5) == 0)
			col = "author", p += 5;
		else if (strncasecmp(p, "subject:", 8) == 0)
			col = "subject", p += 8;
		else if (strncasecmp(p, "after:", 6) == 0 ||
			 strncasecmp(p, "before:", 7) == 0) {
			s = p + (p[0] == 'a' || p[0] == 'A' ? 6 : 7);
			n = strcspn(s, " \t");
			if (archive_search_date(s, n,
				s - p == 6 ? &q->after : &q->before) == -1) {
				*why = "a date is YYYY-MM-DD";
				return -1;
			}
			p = s + n;
			continue;
		}
		if (*p == '"') {
			s = ++p;
			n = strcspn(s, "\"");
			p = s + n + (s[n] == '"');
		} else {
			s = p;
			n = strcspn(s, " \t");
			p = s + n;
		}
		if (n > 0)
			archive_search_term(q, col, s, n);
	}
	return 0;
}

/* archive_search_stop - the progress handler: stop a long statement */
static int
archive_search_stop(void *arg)
{
	long *calls = arg;

	return ++*calls > ARCHIVE_SEARCH_STEPS / 1000;
}

/* archive_search_snippet - a snippet, its matches (between \1 and \2)
 * in <mark> */
static void
archive_search_snippet(FILE *fp, const char *s)
{
	const char *p;

	for (p = s; *p != '\0'; p = s) {
		s = p + strcspn(p, "\1\2");
		archive_html_plain(fp, p, (size_t)(s - p));
		if (*s == '\1')
			fputs("<mark>", fp);
		else if (*s == '\2')
			fputs("</mark>", fp);
		if (*s != '\0')
			s++;
	}
}

/* archive_search_result - one result as a list item */
static void
archive_search_result(FILE *fp, const char *base, sqlite3_stmt *st)
{
	fputs("<li><a href=\"", fp);
	html_str(fp, base);
	fputs("msg/", fp);
	html_str(fp, archive_db_text(st, 0));
	fputs("/index.html\">", fp);
	html_str(fp, archive_db_text(st, 1));
	fputs("</a> <span class=\"who\">", fp);
	html_str(fp, archive_db_text(st, 2));
	fputs("</span> <span class=\"when\">", fp);
	archive_html_date(fp, (time_t)sqlite3_column_int64(st, 3));
	fputs("</span><br><span class=\"n\">", fp);
	archive_search_snippet(fp, archive_db_text(st, 4));
	fputs("</span></li>\n", fp);
}

/* archive_search_page - the results of text */
int
archive_search_page(
    struct archive_list *al, FILE *fp, const char *text, long long offset)
{
	struct archive_query q;
	const char *why = NULL;
	sqlite3_stmt *st;
	char base[1024];
	long calls = 0;
	int k, shown = 0;

	/* the pages' stylesheet and links are under archive_url */
	archive_list_base(al, base, sizeof(base));
	archive_html_head(fp, "Search", al->list, base);
	fputs("<h1>Search</h1>\n<form method=\"get\"><input type=\"hidden\" "
	      "name=\"l\" value=\"",
	    fp);
	html_str(fp, al->list);
	fputs("@", fp);
	html_str(fp, al->domain);
	fputs("\"><input type=\"search\" name=\"q\" value=\"", fp);
	html_str(fp, text);
	fputs("\" aria-label=\"Search\"> <button>Search</button></form>\n", fp);
	if (archive_search_parse(text, &q, &why) == -1) {
		fputs("<p>", fp);
		html_str(fp, why);
		fputs("</p>\n", fp);
		archive_html_foot(fp, base);
		return 0;
	}
	sqlite3_progress_handler(al->db, 1000, archive_search_stop, &calls);
	st = q.match[0] != '\0'
		 ? archive_db_q(al->db,
		       "SELECT m.name, m.subject, m.from_name, m.date, "
		       "snippet(fts, 2, char(1), char(2), '...', 16) FROM fts "
		       "JOIN msg m ON m.id = fts.rowid WHERE fts MATCH ? AND "
		       "m.removed = 0 AND m.date >= ? AND m.date < ? ORDER BY "
		       "rank LIMIT ? OFFSET ?",
		       "tiiii", q.match, q.after, q.before,
		       (long long)ARCHIVE_SEARCH_PAGE, offset)
		 : archive_db_q(al->db,
		       "SELECT name, subject, from_name, date, '' FROM msg "
		       "WHERE removed = 0 AND date >= ? AND date < ? ORDER BY "
		       "date DESC LIMIT ? OFFSET ?",
		       "iiii", q.after, q.before,
		       (long long)ARCHIVE_SEARCH_PAGE, offset);
	fputs("<ul class=\"posts\">\n", fp);
	while (st != NULL && (k = sqlite3_step(st)) == SQLITE_ROW) {
		archive_search_result(fp, base, st);
		shown++;
	}
	if (st != NULL)
		sqlite3_reset(st);
	fputs("</ul>\n", fp);
	if (shown == 0)
		fputs("<p>No post matches.</p>\n", fp);
	sqlite3_progress_handler(al->db, 0, NULL, NULL);
	archive_html_foot(fp, base);
	return st == NULL ? -1 : 0;
}
