/*
 * archive_thread.c - threading by References and In-Reply-To, with the
 * Subject as a fallback: JWZ's algorithm done incrementally in the
 * index.  A post's parent is the last of its references archived; a
 * post that comes before its parent is adopted when the parent comes
 * (archive_thread_adopt), with its subtree.  A loop (A references B
 * references A) is cut where the adoption would close it, and every
 * walk up a chain of parents is bounded.
 */
#include <stdlib.h>

#include "archive_db.h"
#include "archive_thread.h"
#include "log.h"

#define ARCHIVE_THREAD_DEPTH 100000	      /* parents walked at most */
#define ARCHIVE_THREAD_SUBJECT (60 * 86400LL) /* a subject's thread lasts */

/* archive_thread_place - the parent: the nearest reference archived */
int
archive_thread_place(sqlite3 *db, const struct archive_post *p,
    long long *parent, long long *thread)
{
	size_t i;
	int k;

	*parent = *thread = 0;
	for (i = p->nrefs; i-- > 0;) {
		if ((k = archive_db_int(db, parent,
			 "SELECT id FROM msg WHERE msgid = ?", "t",
			 p->refs[i])) == -1)
			return -1;
		if (k == 1)
			return archive_db_int(db, thread,
				   "SELECT thread FROM msg WHERE id = ?", "i",
				   *parent) == -1
				   ? -1
				   : 0;
	}
	if (!p->reply || p->skey[0] == '\0')
		return 0;
	/* JWZ: a reply by subject alone joins its subject's thread, as a
	 * reply to its first post */
	if ((k = archive_db_int(db, thread,
		 "SELECT thread FROM msg WHERE skey = ? AND date >= ? "
		 "ORDER BY date DESC LIMIT 1",
		 "ti", p->skey, (long long)p->date - ARCHIVE_THREAD_SUBJECT)) ==
	    -1)
		return -1;
	if (k == 1)
		*parent = *thread;
	return 0;
}

/* archive_thread_ancestor - anc is id or one of its ancestors: 1, 0,
 * or -1 (an error, or a chain too long to tell: treated as a loop) */
static int
archive_thread_ancestor(sqlite3 *db, long long anc, long long id)
{
	long long p;
	int n, k;

	for (n = 0; n < ARCHIVE_THREAD_DEPTH; n++) {
		if (id == anc)
			return 1;
		if ((k = archive_db_int(db, &p,
			 "SELECT parent FROM msg WHERE id = ?", "i", id)) == -1)
			return -1;
		if (k == 0 || p == 0)
			return 0;
		id = p;
	}
	return -1;
}

/* archive_thread_nearer - the post child (referencing the new post at
 * position pos) takes the new post as its parent: it had none, or its
 * parent is not among its references, or comes before pos there */
static int
archive_thread_nearer(sqlite3 *db, long long child, long long pos)
{
	long long parent, ppos;
	int k;

	if ((k = archive_db_int(db, &parent,
		 "SELECT parent FROM msg WHERE id = ?", "i", child)) != 1)
		return k;
	if (parent == 0)
		return 1;
	if ((k = archive_db_int(db, &ppos,
		 "SELECT r.pos FROM ref r JOIN msg m ON m.msgid = r.ref "
		 "WHERE r.msg = ? AND m.id = ?",
		 "ii", child, parent)) == -1)
		return -1;
	return k == 0 || ppos < pos;
}

/* archive_thread_move - child under id, its subtree into thread; its
 * pages, its old thread's and their months marked dirty */
static int
archive_thread_move(
    sqlite3 *db, long long child, long long id, long long thread, long long *lo)
{
	long long old, left, first;

	if (archive_db_int(db, &old, "SELECT thread FROM msg WHERE id = ?", "i",
		child) != 1 ||
	    archive_db_int(db, &first,
		"WITH RECURSIVE sub(id) AS (SELECT ? UNION SELECT m.id FROM "
		"msg m JOIN sub ON m.parent = sub.id) SELECT min(id) FROM sub",
		"i", child) != 1 ||
	    archive_db_do(db, "UPDATE msg SET parent = ? WHERE id = ?", "ii",
		id, child) == -1)
		return -1;
	if (archive_db_do(db,
		"WITH RECURSIVE sub(id) AS (SELECT ? UNION SELECT m.id FROM "
		"msg m JOIN sub ON m.parent = sub.id) "
		"INSERT OR IGNORE INTO dirty(page) SELECT 'msg:' || id FROM "
		"sub "
		"UNION SELECT 'month:' || month FROM msg WHERE id IN sub",
		"i", child) == -1 ||
	    archive_db_do(db,
		"WITH RECURSIVE sub(id) AS (SELECT ? UNION SELECT m.id FROM "
		"msg m JOIN sub ON m.parent = sub.id) "
		"UPDATE msg SET thread = ? WHERE id IN sub",
		"ii", child, thread) == -1)
		return -1;
	if (old != thread && (*lo == 0 || first < *lo))
		*lo = first;
	if (old == thread)
		return 0;
	if (archive_db_do(db,
		"INSERT OR IGNORE INTO dirty(page) VALUES('thread:' || ?)", "i",
		old) == -1 ||
	    archive_db_int(db, &left,
		"SELECT count(*) FROM msg WHERE thread = ?", "i", old) != 1)
		return -1;
	if (left > 0)
		return 0;
	/* the old thread is gone: its page sends readers to the new */
	return archive_db_do(db,
		   "INSERT OR REPLACE INTO tmoved(old, new) VALUES(?, ?)", "ii",
		   old, thread) == -1 ||
		       archive_db_do(db,
			   "UPDATE tmoved SET new = ? WHERE new = ?", "ii",
			   thread, old) == -1
		   ? -1
		   : 0;
}

/* archive_thread_adopt - the posts waiting for id adopted */
int
archive_thread_adopt(
    sqlite3 *db, long long id, const char *msgid, long long thread)
{
	long long *kids = NULL, *pos = NULL, *nk, lo = 0;
	size_t n = 0, cap = 0, i;
	sqlite3_stmt *st;
	int r = 0, k;

	if ((st = archive_db_q(db,
		 "SELECT msg, pos FROM ref WHERE ref = ? AND msg != ?", "ti",
		 msgid, id)) == NULL)
		return -1;
	while ((k = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((nk = reallocarray(kids, cap, sizeof(*kids))) ==
			    NULL)
				break;
			kids = nk;
			if ((nk = reallocarray(pos, cap, sizeof(*pos))) == NULL)
				break;
			pos = nk;
		}
		kids[n] = sqlite3_column_int64(st, 0);
		pos[n++] = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (k != SQLITE_DONE)
		r = -1;
	for (i = 0; r == 0 && i < n; i++) {
		if ((k = archive_thread_nearer(db, kids[i], pos[i])) == -1)
			r = -1;
		else if (k == 1 &&
			 (k = archive_thread_ancestor(db, kids[i], id)) == 0)
			r = archive_thread_move(db, kids[i], id, thread, &lo);
		else if (k == 1)
			log_info("archive: post %lld not under post %lld: a "
				 "loop of references",
			    kids[i], id);
	}
	free(kids);
	free(pos);
	/* posts came in before some of the thread's: its pages are
	 * written again, and the pages of its posts after them (their
	 * place in it moved) */
	if (r == 0 && lo != 0 &&
	    archive_db_do(db,
		"INSERT OR IGNORE INTO dirty(page) SELECT 'thread:' || ?1 "
		"UNION SELECT 'msg:' || id FROM msg WHERE thread = ?1 AND "
		"id > ?2",
		"ii", thread, lo) == -1)
		r = -1;
	return r;
}
