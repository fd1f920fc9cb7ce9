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
		"skey, from_name, from_addr, parent, thread, size, raw) "
		"VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, nullif(?, 0), ?, ?, ?)",
		"tttitttttiiib", entry, p->msgid, p->name, (long long)p->date,
		p->month, p->subject, p->skey, p->from_name, p->from_addr,
		*parent, *thread, (long long)len, text, len) == -1)
		return -1;
	*id = sqlite3_last_insert_rowid(al->db);
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

/* archive_ingest_dirty - the pages one new post changes */
static int
archive_ingest_dirty(struct archive_list *al, long long id, long long parent,
    long long thread, const char *month)
{
	char key[64];

	snprintf(key, sizeof(key), "msg:%lld", id);
	if (archive_db_dirty(al->db, key) == -1)
		return -1;
	snprintf(key, sizeof(key), "msg:%lld", parent);
	if (parent != 0 && archive_db_dirty(al->db, key) == -1)
		return -1;
	snprintf(key, sizeof(key), "thread:%lld", thread);
	if (archive_db_dirty(al->db, key) == -1)
		return -1;
	snprintf(key, sizeof(key), "month:%s", month);
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

/* archive_ingest_store - A2: one transaction */
int
archive_ingest_store(struct archive_list *al, const char *entry,
    const char *text, size_t len, time_t now)
{
	long long had;
	int k;

	if (archive_db_do(al->db, "BEGIN IMMEDIATE", "") == -1)
		return -1;
	if ((k = archive_db_int(al->db, &had,
		 "SELECT id FROM msg WHERE entry = ?", "t", entry)) == 0)
		k = archive_ingest_new(al, entry, text, len, now);
	else if (k == 1)
		k = 0;
	if (k == -1) {
		(void)archive_db_do(al->db, "ROLLBACK", "");
		return -1;
	}
	return archive_db_do(al->db, "COMMIT", "") == -1 ? -1 : k;
}

/* archive_ingest_drain - every entry of the inbox stored (A2) and
 * removed (A3); the number stored, or -1 */
static long
archive_ingest_drain(struct archive_list *al, const char *inbox)
{
	struct spool_digest_entry *e;
	size_t n, i;
	char *text;
	size_t len;
	long stored = 0;
	int k;

	if (spool_digest_entries(inbox, &e, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (spool_digest_read(inbox, e[i].name, &text, &len) == -1) {
			log_warn("%s@%s: archive: %s", al->list, al->domain,
			    e[i].name);
			continue;
		}
		k = archive_ingest_store(al, e[i].name, text, len, time(NULL));
		free(text);
		if (k == -1)
			break;
		stored += k;
		if (spool_archive_done(inbox, e[i].name) == -1) {
			log_warn("%s@%s: archive: cannot remove %s", al->list,
			    al->domain, e[i].name);
			break;
		}
		if (k == 1)
			log_info("%s@%s: archived %s", al->list, al->domain,
			    e[i].name);
	}
	free(e);
	return i < n ? -1 : stored;
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
