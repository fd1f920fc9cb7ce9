/*
 * archive_ingest.c - a post stored in the index in one transaction (A2
 * of archive/README), its inbox entry then removed (A3), and after the
 * inbox is drained the pages written (A4).  The entry name is the
 * post's identity: a post stored, then its entry left by a crash, is
 * found by it and not stored twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archive_body.h"
#include "archive_db.h"
#include "archive_ingest.h"
#include "archive_pages.h"
#include "archive_parse.h"
#include "archive_thread.h"
#include "log.h"
#include "spool_archive.h"

#define ARCHIVE_INGEST_BATCH 512 /* posts per transaction */

/* archive_ingest_row - the post's row, references and search text */
static int
archive_ingest_row(struct archive_list *al, const char *entry,
    const struct archive_post *p, const char *text, size_t len, long long *id,
    long long *parent, long long *thread)
{
	char author[600], *body = NULL;
	size_t blen, i;
	int r;

	if (archive_thread_place(al->db, p, parent, thread) == -1 ||
	    archive_db_do(al->db,
		"INSERT INTO msg(entry, msgid, name, date, month, subject, "
		"skey, from_name, from_addr, parent, thread, size) "
		"VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, nullif(?, 0), ?, ?)",
		"tttitttttiii", entry, p->msgid, p->name, (long long)p->date,
		p->month, p->subject, p->skey, p->from_name, p->from_addr,
		*parent, *thread, (long long)len) == -1)
		return -1;
	*id = sqlite3_last_insert_rowid(al->db);
	if (archive_db_do(al->db, "INSERT INTO raw(id, raw) VALUES(?, ?)", "ib",
		*id, text, len) == -1)
		return -1;
	if (*thread == 0) {
		*thread = *id;
		if (archive_db_do(al->db,
			"UPDATE msg SET thread = ? WHERE id = ?", "ii", *id,
			*id) == -1)
			return -1;
	}
	for (i = 0; i < p->nrefs; i++)
		if (archive_db_do(al->db,
			"INSERT INTO ref(msg, pos, ref) VALUES(?, ?, ?)", "iit",
			*id, (long long)i, p->refs[i]) == -1)
			return -1;
	snprintf(author, sizeof(author), "%s %s", p->from_name, p->from_addr);
	if (archive_body_text(text, len, &body, &blen) == -1)
		return -1;
	r = archive_db_do(al->db,
	    "INSERT INTO fts(rowid, subject, author, body) VALUES(?, ?, ?, ?)",
	    "ittt", *id, p->subject, author, body);
	free(body);
	return r;
}

/* archive_ingest_mpage - page k of a month's view marked dirty (k < 0:
 * the post starts page -k, and the page before gains its link) */
static int
archive_ingest_mpage(
    struct archive_list *al, const char *month, char view, long long k)
{
	char key[64];

	snprintf(
	    key, sizeof(key), "mpage:%s:%c:%lld", month, view, k < 0 ? -k : k);
	if (archive_db_dirty(al->db, key) == -1)
		return -1;
	if (k >= -1)
		return 0;
	snprintf(key, sizeof(key), "mpage:%s:%c:%lld", month, view, -k - 1);
	return archive_db_dirty(al->db, key);
}

/* archive_ingest_common - the pages every new post changes: its
 * month's mbox, the index, the feed, and its month's count */
static int
archive_ingest_common(struct archive_list *al, const char *month)
{
	char key[64];

	snprintf(key, sizeof(key), "mbox:%s", month);
	return archive_db_dirty(al->db, key) == -1 ||
		       archive_db_dirty(al->db, "index") == -1 ||
		       archive_db_dirty(al->db, "feed") == -1 ||
		       archive_db_dirty(al->db, "css") == -1 ||
		       archive_db_do(al->db,
			   "INSERT INTO month(month, n) VALUES(?, 1) ON "
			   "CONFLICT(month) DO UPDATE SET n = n + 1",
			   "t", month) == -1
		   ? -1
		   : 0;
}

/* archive_ingest_bulk - an import's post: its whole thread and month */
static int
archive_ingest_bulk(
    struct archive_list *al, long long thread, const char *month)
{
	char key[64];

	snprintf(key, sizeof(key), "thread:%lld", thread);
	if (archive_db_dirty(al->db, key) == -1)
		return -1;
	snprintf(key, sizeof(key), "month:%s", month);
	if (archive_db_dirty(al->db, key) == -1)
		return -1;
	return archive_ingest_common(al, month);
}

/* archive_ingest_dirty - the pages one new post changes */
static int
archive_ingest_dirty(struct archive_list *al, long long id, long long parent,
    long long thread, const char *month)
{
	char key[64];
	long long k, dp, tp;
	int first;

	snprintf(key, sizeof(key), "msg:%lld", id);
	if (archive_db_dirty(al->db, key) == -1)
		return -1;
	snprintf(key, sizeof(key), "msg:%lld", parent);
	if (parent != 0 && archive_db_dirty(al->db, key) == -1)
		return -1;
	/* an import marks its posts' whole threads and months, each
	 * written once at the end: counting a post's place in them costs
	 * a walk of the month per post (quadratic in a month's posts) */
	if (al->bulk)
		return archive_ingest_bulk(al, thread, month);
	/* the thread's page it is on; the one before when it starts a
	 * page (its "later posts" link) */
	if ((k = archive_tpage_of(al, thread, id, &first)) == -1)
		return -1;
	snprintf(key, sizeof(key), "tpage:%lld:%lld", thread, k);
	if (archive_db_dirty(al->db, key) == -1)
		return -1;
	snprintf(key, sizeof(key), "tpage:%lld:%lld", thread, k - 1);
	if (k > 1 && first && archive_db_dirty(al->db, key) == -1)
		return -1;
	/* its month's page by date and the page its thread is on */
	if (archive_mpage_of(al, month, id, thread, &dp, &tp) == -1 ||
	    archive_ingest_mpage(al, month, 'd', dp) == -1 ||
	    archive_ingest_mpage(al, month, 't', tp) == -1)
		return -1;
	return archive_ingest_common(al, month);
}

/* archive_ingest_new - the post is not in the index: stored */
static int
archive_ingest_new(struct archive_list *al, const char *entry, const char *text,
    size_t len, time_t now)
{
	struct archive_post p;
	char made[ARCHIVE_MSGID_MAX + 1];
	long long id, parent, thread, dup;
	int k, r = -1;

	snprintf(made, sizeof(made), "%s@%s", entry, al->domain);
	if (archive_parse(text, len, made, now, &p) == -1)
		return -1;
	if ((k = archive_db_int(al->db, &dup,
		 "SELECT id FROM msg WHERE msgid = ? OR name = ?", "tt",
		 p.msgid, p.name)) != 0) {
		if (k == 1)
			log_info("%s@%s: archive: %s is there already (post "
				 "%lld)",
			    al->list, al->domain, entry, dup);
		archive_parse_free(&p);
		return k == 1 ? 0 : -1;
	}
	if (archive_ingest_row(
		al, entry, &p, text, len, &id, &parent, &thread) == 0 &&
	    archive_thread_adopt(al->db, id, p.msgid, thread) == 0 &&
	    archive_ingest_dirty(al, id, parent, thread, p.month) == 0)
		r = 1;
	archive_parse_free(&p);
	return r;
}

/* archive_ingest_one - one post, inside the open transaction: 1 stored,
 * 0 it was already, -1 */
static int
archive_ingest_one(struct archive_list *al, const char *entry, const char *text,
    size_t len, time_t now)
{
	long long had;
	int k;

	if ((k = archive_db_int(al->db, &had,
		 "SELECT id FROM msg WHERE entry = ?", "t", entry)) == 0)
		k = archive_ingest_new(al, entry, text, len, now);
	else if (k == 1)
		k = 0;
	return k;
}

/* archive_ingest_add - one post into the open batch */
int
archive_ingest_add(struct archive_list *al, const char *entry, const char *text,
    size_t len, time_t now)
{
	int k;

	if (al->batch == 0 &&
	    archive_db_do(al->db, "BEGIN IMMEDIATE", "") == -1)
		return -1;
	al->batch++;
	if ((k = archive_ingest_one(al, entry, text, len, now)) == -1) {
		(void)archive_ingest_end(al, 0);
		return -1;
	}
	if (al->batch >= ARCHIVE_INGEST_BATCH &&
	    archive_ingest_end(al, 1) == -1)
		return -1;
	return k;
}

/* archive_ingest_end - the batch committed or rolled back */
int
archive_ingest_end(struct archive_list *al, int ok)
{
	if (al->batch == 0)
		return 0;
	al->batch = 0;
	if (ok)
		return archive_db_do(al->db, "COMMIT", "");
	(void)archive_db_do(al->db, "ROLLBACK", "");
	return -1;
}

/* archive_ingest_batch - A2 for entries e[0..n): one transaction; the
 * number stored, or -1 (none stored) */
static long
archive_ingest_batch(struct archive_list *al, const char *inbox,
    const struct spool_digest_entry *e, size_t n)
{
	char *text;
	size_t len, i;
	long stored = 0;
	int k = 0;

	if (archive_db_do(al->db, "BEGIN IMMEDIATE", "") == -1)
		return -1;
	for (i = 0; i < n && k != -1; i++) {
		if (spool_digest_read(inbox, e[i].name, &text, &len) == -1) {
			log_warn("%s@%s: archive: %s", al->list, al->domain,
			    e[i].name);
			k = -1;
			break;
		}
		if ((k = archive_ingest_one(
			 al, e[i].name, text, len, time(NULL))) == 1) {
			stored++;
			log_info("%s@%s: archived %s", al->list, al->domain,
			    e[i].name);
		}
		free(text);
	}
	if (k == -1) {
		(void)archive_db_do(al->db, "ROLLBACK", "");
		return -1;
	}
	return archive_db_do(al->db, "COMMIT", "") == -1 ? -1 : stored;
}

/* archive_ingest_drain - the inbox in batches: each stored in one
 * transaction (A2), then its entries removed (A3); the number stored,
 * or -1 */
static long
archive_ingest_drain(struct archive_list *al, const char *inbox)
{
	struct spool_digest_entry *e;
	size_t n, i, j, m;
	long stored = 0, k = 0;

	if (spool_digest_entries(inbox, &e, &n) == -1)
		return -1;
	for (i = 0; i < n && k != -1; i += m) {
		m = n - i < ARCHIVE_INGEST_BATCH ? n - i : ARCHIVE_INGEST_BATCH;
		if ((k = archive_ingest_batch(al, inbox, e + i, m)) == -1)
			break;
		stored += k;
		for (j = i; j < i + m && k != -1; j++)
			if (spool_archive_done(inbox, e[j].name) == -1) {
				log_warn("%s@%s: archive: cannot remove %s",
				    al->list, al->domain, e[j].name);
				k = -1;
			}
	}
	free(e);
	if (k != -1 && n > 0 && spool_archive_sync(inbox) == -1)
		k = -1;
	return k == -1 ? -1 : stored;
}

/* archive_ingest_run - drain, then write the pages */
long
archive_ingest_run(struct archive_list *al)
{
	long k;

	if ((k = archive_ingest_drain(al, al->inbox)) == -1 ||
	    archive_pages_flush(al) == -1)
		return -1;
	return k;
}
