/*
 * archive_rank.h - the search's ranking function (archive_rank.c),
 * registered with FTS5 on a connection as "mj_rank".
 */
#ifndef MJQ_ARCHIVE_RANK_H
#define MJQ_ARCHIVE_RANK_H

#include <sqlite3.h>

/* archive_rank_register - mj_rank() made known to db's FTS5; 0 or -1 */
int archive_rank_register(sqlite3 *db);

#endif
