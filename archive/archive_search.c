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
#include "archive_rank.h"
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
	q->at[q->nterms] = (unsigned short)(o - q->match);
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
	q->len[q->nterms] = (unsigned short)(o - q->match - q->at[q->nterms]);
	q->nterms++;
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

/* archive_search_bounds - the ids of the posts dated in [after,
 * before), for FTS5 to seek to (ids are arrival order, dates nearly so:
 * the first and last such id bound them); 0 with none */
static int
archive_search_bounds(struct archive_list *al, const struct archive_query *q,
    long long *lo, long long *hi)
{
	*lo = 0;
	*hi = (long long)1 << 62;
	if (q->after == 0 && q->before == (long long)1 << 62)
		return 1;
	if (archive_db_int(al->db, lo,
		"SELECT min(id) FROM msg WHERE date >= ? AND date < ?", "ii",
		q->after, q->before) != 1 ||
	    archive_db_int(al->db, hi,
		"SELECT max(id) FROM msg WHERE date >= ? AND date < ?", "ii",
		q->after, q->before) != 1)
		return -1;
	return *hi > 0;
}

/* A query's matches, ranked or the latest first (archive_search_query) */
#define ARCHIVE_SEARCH_HITS                                                    \
	"SELECT m.name, m.subject, m.from_name, m.date, "                      \
	"snippet(fts, 2, char(1), char(2), '...', 16) FROM fts JOIN msg m ON " \
	"m.id = fts.rowid WHERE fts MATCH ? AND fts.rowid BETWEEN ? AND ? "    \
	"AND m.removed = 0 AND m.date >= ? AND m.date < ? "
/* ranked by mj_rank (archive_rank.c), which reads no match's row, the
 * sort FTS5's own (the rank column), so that only a page's matches are
 * joined to their rows */
static const char archive_search_ranked[] = ARCHIVE_SEARCH_HITS
    "AND fts.rank MATCH 'mj_rank()' ORDER BY fts.rank LIMIT ? OFFSET ?";
static const char archive_search_latest[] =
    ARCHIVE_SEARCH_HITS "ORDER BY fts.rowid DESC LIMIT ? OFFSET ?";

/* archive_search_rankable - 1 when every term of q is in at most
 * ARCHIVE_SEARCH_RANKED posts, 0 when one is in more, -1; ranking
 * (bm25) counts every post that has each term, whatever the others */
static int
archive_search_rankable(struct archive_list *al, const struct archive_query *q)
{
	char term[sizeof(q->match)];
	long long n;
	size_t i;

	for (i = 0; i < q->nterms; i++) {
		memcpy(term, q->match + q->at[i], q->len[i]);
		term[q->len[i]] = '\0';
		if (archive_db_int(al->db, &n,
			"SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts "
			"MATCH ? LIMIT ?)",
			"ti", term, (long long)ARCHIVE_SEARCH_RANKED + 1) == -1)
			return -1;
		if (n > ARCHIVE_SEARCH_RANKED)
			return 0;
	}
	return 1;
}

/* archive_search_query - the statement of q's results: ranked (bm25)
 * when each of its terms is in at most ARCHIVE_SEARCH_RANKED posts
 * (*ranked = 1), else the latest archived first (*ranked = 0; arrival
 * order, the date's but for imported posts: ranking reads every post
 * that has a term, and the latest are what a reader of a list looks
 * for), so a query reads at most ARCHIVE_SEARCH_RANKED posts a term and
 * then offset + a page of its matches; into *st: 1, 0 (no post in its
 * dates), -1 */
static int
archive_search_query(struct archive_list *al, const struct archive_query *q,
    long long offset, sqlite3_stmt **st, int *ranked)
{
	long long lo, hi, n = 0;
	int k;

	*ranked = 1;
	*st = NULL;
	if (q->match[0] == '\0')
		*st = archive_db_q(al->db,
		    "SELECT name, subject, from_name, date, '' FROM msg "
		    "WHERE removed = 0 AND date >= ? AND date < ? ORDER BY "
		    "date DESC LIMIT ? OFFSET ?",
		    "iiii", q->after, q->before, (long long)ARCHIVE_SEARCH_PAGE,
		    offset);
	else if ((k = archive_search_bounds(al, q, &lo, &hi)) != 1)
		return k;
	else if ((n = archive_search_rankable(al, q)) == -1)
		return -1;
	else {
		*ranked = (int)n;
		*st = archive_db_q(al->db,
		    *ranked ? archive_search_ranked : archive_search_latest,
		    "tiiiiii", q->match, lo, hi, q->after, q->before,
		    (long long)ARCHIVE_SEARCH_PAGE, offset);
	}
	return *st == NULL ? -1 : 1;
}

/* archive_search_page - the results of text */
int
archive_search_page(
    struct archive_list *al, FILE *fp, const char *text, long long offset)
{
	struct archive_query q;
	const char *why = NULL;
	sqlite3_stmt *st = NULL;
	char base[1024];
	long calls = 0;
	int k = SQLITE_DONE, r = -1, ranked = 1, shown = 0, begun = 0;

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
	/* one read transaction: one snapshot of the index (the WAL's read
	 * lock taken once) for the counts and the results */
	if (archive_rank_register(al->db) == -1 ||
	    (begun = archive_db_do(al->db, "BEGIN", "") == 0) == 0 ||
	    (r = archive_search_query(al, &q, offset, &st, &ranked)) == -1)
		k = SQLITE_ERROR;
	if (r == 1 && !ranked)
		fprintf(fp,
		    "<p>The latest first (a word is in more than %d "
		    "posts).</p>\n",
		    ARCHIVE_SEARCH_RANKED);
	fputs("<ul class=\"posts\">\n", fp);
	while (st != NULL && (k = sqlite3_step(st)) == SQLITE_ROW) {
		archive_search_result(fp, base, st);
		shown++;
	}
	if (st != NULL)
		sqlite3_reset(st);
	if (begun && archive_db_do(al->db, "COMMIT", "") == -1)
		k = SQLITE_ERROR;
	fputs("</ul>\n", fp);
	if (shown == 0)
		fputs("<p>No post matches.</p>\n", fp);
	sqlite3_progress_handler(al->db, 0, NULL, NULL);
	archive_html_foot(fp, base);
	return k == SQLITE_DONE ? 0 : -1;
}
