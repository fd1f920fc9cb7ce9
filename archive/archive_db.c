/*
 * archive_db.c - the archive's index.  One database per list, in WAL
 * mode with synchronous=FULL, so that a COMMIT that returned is on the
 * disk (state A2 of archive/README).  Statements are prepared once per
 * run and kept, keyed by their text's address (each caller's SQL is a
 * string constant).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "archive_db.h"
#include "log.h"

#define ARCHIVE_DB_CACHE 64
#define ARCHIVE_DB_MMAP "1099511627776" /* bytes a reader maps, at most */

static const char archive_db_schema[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "PRAGMA cache_size=-16384;"
    "CREATE TABLE IF NOT EXISTS msg(id INTEGER PRIMARY KEY,"
    " entry TEXT UNIQUE, msgid TEXT NOT NULL UNIQUE,"
    " name TEXT NOT NULL UNIQUE, date INTEGER NOT NULL,"
    " month TEXT NOT NULL, subject TEXT NOT NULL, skey TEXT NOT NULL,"
    " from_name TEXT NOT NULL, from_addr TEXT NOT NULL, parent INTEGER,"
    " thread INTEGER NOT NULL, size INTEGER NOT NULL,"
    " removed INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS raw(id INTEGER PRIMARY KEY,"
    " raw BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS msg_thread ON msg(thread, date, id);"
    /* A month's posts in order, and its threads in order with each
     * one's first post (the rowid ends every entry): a month's pages
     * and the page a new post is on, without sorting the month (the
     * index by month and date of earlier versions ordered nothing) */
    "DROP INDEX IF EXISTS msg_month;"
    "CREATE INDEX IF NOT EXISTS msg_month_id ON msg(month);"
    "CREATE INDEX IF NOT EXISTS msg_month_thread ON msg(month, thread);"
    "CREATE INDEX IF NOT EXISTS msg_skey ON msg(skey, date);"
    "CREATE INDEX IF NOT EXISTS msg_parent ON msg(parent, date, id);"
    "CREATE INDEX IF NOT EXISTS msg_date ON msg(date, id);"
    "CREATE TABLE IF NOT EXISTS ref(msg INTEGER NOT NULL,"
    " pos INTEGER NOT NULL, ref TEXT NOT NULL,"
    " PRIMARY KEY(msg, pos)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS ref_ref ON ref(ref);"
    "CREATE TABLE IF NOT EXISTS month(month TEXT PRIMARY KEY,"
    " n INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS tmoved(old INTEGER PRIMARY KEY,"
    " new INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS dirty(page TEXT PRIMARY KEY) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS mbox(month TEXT PRIMARY KEY,"
    " last INTEGER NOT NULL, size INTEGER NOT NULL,"
    " ino INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(subject, author,"
    " body, tokenize='unicode61 remove_diacritics 2');";

/* The statements of this run, by their SQL's address. */
static struct {
	sqlite3 *db;
	const char *sql;
	sqlite3_stmt *st;
} archive_db_cache[ARCHIVE_DB_CACHE];

/* archive_db_open - the index, its schema made when new */
int
archive_db_open(
    const char *path, int readonly, sqlite3 **db, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_open_v2(path, db,
		(readonly ? SQLITE_OPEN_READONLY
			  : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		    SQLITE_OPEN_NOMUTEX,
		NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path,
		    *db ? sqlite3_errmsg(*db) : "out of memory");
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	(void)sqlite3_busy_timeout(*db, readonly ? 2000 : 10000);
	/* a reader (the search) maps the file instead of copying each
	 * page it reads through read(2): up to the library's own bound */
	if (readonly) {
		if (sqlite3_exec(*db, "PRAGMA mmap_size=" ARCHIVE_DB_MMAP, NULL,
			NULL, &msg) == SQLITE_OK)
			return 0;
		snprintf(err, errlen, "%s: %s", path, msg ? msg : "mmap_size");
		sqlite3_free(msg);
		archive_db_close(*db);
		*db = NULL;
		return -1;
	}
	if (sqlite3_exec(*db, archive_db_schema, NULL, NULL, &msg) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, msg ? msg : "schema");
		sqlite3_free(msg);
		archive_db_close(*db);
		*db = NULL;
		return -1;
	}
	return 0;
}

/* archive_db_close - its statements finalized, the database closed */
void
archive_db_close(sqlite3 *db)
{
	size_t i;

	if (db == NULL)
		return;
	for (i = 0; i < ARCHIVE_DB_CACHE; i++)
		if (archive_db_cache[i].db == db) {
			sqlite3_finalize(archive_db_cache[i].st);
			memset(&archive_db_cache[i], 0,
			    sizeof(archive_db_cache[i]));
		}
	if (sqlite3_close(db) != SQLITE_OK)
		log_warnx("archive: close: %s", sqlite3_errmsg(db));
}

/* archive_db_stmt - the kept statement of sql, prepared when new */
static sqlite3_stmt *
archive_db_stmt(sqlite3 *db, const char *sql)
{
	size_t i, free_slot = ARCHIVE_DB_CACHE;
	sqlite3_stmt *st;

	for (i = 0; i < ARCHIVE_DB_CACHE; i++) {
		if (archive_db_cache[i].db == db &&
		    archive_db_cache[i].sql == sql)
			return archive_db_cache[i].st;
		if (archive_db_cache[i].db == NULL &&
		    free_slot == ARCHIVE_DB_CACHE)
			free_slot = i;
	}
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st,
		NULL) != SQLITE_OK) {
		log_warnx("archive: %s: %s", sql, sqlite3_errmsg(db));
		return NULL;
	}
	if (free_slot == ARCHIVE_DB_CACHE) {
		log_warnx("archive: statement cache full");
		sqlite3_finalize(st);
		return NULL;
	}
	archive_db_cache[free_slot].db = db;
	archive_db_cache[free_slot].sql = sql;
	archive_db_cache[free_slot].st = st;
	return st;
}

/* archive_db_vq - archive_db_q on a va_list */
static sqlite3_stmt *
archive_db_vq(sqlite3 *db, const char *sql, const char *types, va_list ap)
{
	sqlite3_stmt *st;
	const void *b;
	size_t n;
	int i, r = SQLITE_OK;

	if ((st = archive_db_stmt(db, sql)) == NULL)
		return NULL;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	for (i = 0; r == SQLITE_OK && types[i] != '\0'; i++)
		switch (types[i]) {
		case 'i':
			r = sqlite3_bind_int64(
			    st, i + 1, va_arg(ap, long long));
			break;
		case 't':
			r = sqlite3_bind_text(st, i + 1,
			    va_arg(ap, const char *), -1, SQLITE_STATIC);
			break;
		default:
			b = va_arg(ap, const void *);
			n = va_arg(ap, size_t);
			r = sqlite3_bind_blob64(
			    st, i + 1, b, (sqlite3_uint64)n, SQLITE_STATIC);
			break;
		}
	if (r != SQLITE_OK) {
		log_warnx("archive: bind: %s", sqlite3_errmsg(db));
		return NULL;
	}
	return st;
}

/* archive_db_q - the statement of sql, bound */
sqlite3_stmt *
archive_db_q(sqlite3 *db, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, types);
	st = archive_db_vq(db, sql, types, ap);
	va_end(ap);
	return st;
}

/* archive_db_run - st stepped: with v, its first row's first column
 * into *v (1; 0 without a row); without, to its end (0); -1 on error */
static int
archive_db_run(sqlite3 *db, const char *sql, sqlite3_stmt *st, long long *v)
{
	int r;

	if (st == NULL)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if (v != NULL) {
			*v = sqlite3_column_int64(st, 0);
			sqlite3_reset(st);
			return 1;
		}
	sqlite3_reset(st);
	if (r != SQLITE_DONE) {
		log_warnx("archive: %s: %s", sql, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

/* archive_db_do - run to the end */
int
archive_db_do(sqlite3 *db, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, types);
	st = archive_db_vq(db, sql, types, ap);
	va_end(ap);
	return archive_db_run(db, sql, st, NULL);
}

/* archive_db_int - one integer */
int
archive_db_int(
    sqlite3 *db, long long *v, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, types);
	st = archive_db_vq(db, sql, types, ap);
	va_end(ap);
	return archive_db_run(db, sql, st, v);
}

/* archive_db_text - a text column, "" for NULL */
const char *
archive_db_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? (const char *)t : "";
}

/* archive_db_bulk - a bulk load's settings on or off */
int
archive_db_bulk(sqlite3 *db, int on)
{
	int nlog = 0, ckpt = 0;

	if (on)
		return archive_db_do(db, "PRAGMA synchronous=NORMAL", "") ==
				   -1 ||
			       archive_db_do(db,
				   "PRAGMA wal_autocheckpoint=16384", "") == -1
			   ? -1
			   : 0;
	if (archive_db_do(db, "PRAGMA synchronous=FULL", "") == -1 ||
	    archive_db_do(db, "PRAGMA wal_autocheckpoint=1000", "") == -1)
		return -1;
	/* waits (the busy timeout) for readers on an older snapshot */
	if (sqlite3_wal_checkpoint_v2(
		db, NULL, SQLITE_CHECKPOINT_FULL, &nlog, &ckpt) != SQLITE_OK ||
	    nlog != ckpt) {
		log_warnx("archive: checkpoint: %s (%d of %d frames)",
		    sqlite3_errmsg(db), ckpt, nlog);
		return -1;
	}
	return 0;
}

/* archive_db_dirty - a page to write */
int
archive_db_dirty(sqlite3 *db, const char *page)
{
	return archive_db_do(
	    db, "INSERT OR IGNORE INTO dirty(page) VALUES(?)", "t", page);
}
