/*
 * archive_tree.h - lists of posts on the pages (archive_tree.c): rows
 * read from the index, shown flat or as a tree of replies.
 */
#ifndef MJQ_ARCHIVE_TREE_H
#define MJQ_ARCHIVE_TREE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

/* The columns every listing selects, in this order. */
#define ARCHIVE_ROW_COLS "id, parent, thread, date, name, subject, from_name"

struct archive_row {
	long long id, parent, thread, date;
	char *name, *subject, *from_name;
};

/* archive_rows_read - every row of st (selecting ARCHIVE_ROW_COLS) into
 * *rows (malloc'd, *n of them); 0 or -1 */
int archive_rows_read(sqlite3_stmt *st, struct archive_row **rows, size_t *n);
void archive_rows_free(struct archive_row *rows, size_t n);
/* archive_tree_item - one post as a list item's content: its subject
 * linked, its author and date; root the path to the list's top */
void archive_tree_item(FILE *fp, const struct archive_row *r, const char *root);
/* archive_tree_show - rows (in date order) as nested lists: each under
 * its parent when the parent is among them; linear in n */
int archive_tree_show(
    FILE *fp, const struct archive_row *rows, size_t n, const char *root);

#endif
