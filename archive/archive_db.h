/*
 * archive_db.h - a list's archive index in SQLite (archive_db.c): the
 * schema (archive/README, "The index") and statements bound and run in
 * one call.
 */
#ifndef MJQ_ARCHIVE_DB_H
#define MJQ_ARCHIVE_DB_H

#include <sqlite3.h>
#include <stddef.h>

/* archive_db_open - open (create) the index at path, or only read an
 * existing one (readonly); 0, or -1 with err */
int archive_db_open(
    const char *path, int readonly, sqlite3 **db, char *err, size_t errlen);
void archive_db_close(sqlite3 *db);
/* archive_db_q - the statement for sql (prepared once, kept), reset,
 * its parameters bound from the arguments as types says, one letter
 * each: 'i' long long, 't' a NUL-ended string, 'b' a pointer and a
 * size_t (a blob); NULL on error (logged) */
sqlite3_stmt *archive_db_q(
    sqlite3 *db, const char *sql, const char *types, ...);
/* archive_db_do - archive_db_q, stepped to its end; 0 or -1 */
int archive_db_do(sqlite3 *db, const char *sql, const char *types, ...);
/* archive_db_int - the first column of the first row as an integer into
 * *v; 1, 0 without a row, -1 on error */
int archive_db_int(
    sqlite3 *db, long long *v, const char *sql, const char *types, ...);
/* archive_db_text - a text column of the current row, "" for NULL */
const char *archive_db_text(sqlite3_stmt *st, int col);
/* archive_db_bulk - a bulk load (an import) on: commits not synced,
 * checkpoints rarer; off: synchronous=FULL again and the WAL
 * checkpointed into the database, both synced, so that everything
 * committed before is durable; 0 or -1 */
int archive_db_bulk(sqlite3 *db, int on);
/* archive_db_dirty - the page key into dirty (archive/README) */
int archive_db_dirty(sqlite3 *db, const char *page);

#endif
