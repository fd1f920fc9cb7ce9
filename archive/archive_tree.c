/*
 * archive_tree.c - lists of posts.  A tree is shown without recursion:
 * the children of each row are linked in an array, then walked with an
 * explicit stack, so a thread of any depth or breadth costs time and
 * memory linear in its posts; nesting on the page stops at
 * ARCHIVE_TREE_NEST levels (deeper replies are shown at that level).
 */
#include <stdlib.h>
#include <string.h>

#include "archive_html.h"
#include "archive_tree.h"

#define ARCHIVE_TREE_NEST 8

/* archive_rows_read - the rows of st */
int
archive_rows_read(sqlite3_stmt *st, struct archive_row **rows, size_t *n)
{
	struct archive_row *v = NULL, *nv, *r;
	size_t cap = 0;
	int k;

	*rows = NULL;
	*n = 0;
	while ((k = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				break;
			v = nv;
		}
		r = &v[*n];
		r->id = sqlite3_column_int64(st, 0);
		r->parent = sqlite3_column_int64(st, 1);
		r->thread = sqlite3_column_int64(st, 2);
		r->date = sqlite3_column_int64(st, 3);
		r->name = strdup((const char *)sqlite3_column_text(st, 4));
		r->subject = strdup((const char *)sqlite3_column_text(st, 5));
		r->from_name = strdup((const char *)sqlite3_column_text(st, 6));
		(*n)++;
		if (r->name == NULL || r->subject == NULL ||
		    r->from_name == NULL)
			break;
	}
	sqlite3_reset(st);
	*rows = v;
	if (k != SQLITE_DONE) {
		archive_rows_free(v, *n);
		*rows = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/* archive_rows_free - the rows and their strings */
void
archive_rows_free(struct archive_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].name);
		free(rows[i].subject);
		free(rows[i].from_name);
	}
	free(rows);
}

/* archive_tree_item - a post's line */
void
archive_tree_item(FILE *fp, const struct archive_row *r, const char *root)
{
	fprintf(fp, "<a href=\"%smsg/", root);
	html_str(fp, r->name);
	fputs("/index.html\">", fp);
	html_str(fp, r->subject);
	fputs("</a> <span class=\"who\">", fp);
	html_str(fp, r->from_name);
	fputs("</span> <span class=\"when\">", fp);
	archive_html_date(fp, (time_t)r->date);
	fputs("</span>", fp);
}

/* archive_tree_hash - the first slot of id among nslot */
static size_t
archive_tree_hash(long long id, size_t nslot)
{
	return (size_t)((unsigned long long)id * 0x9e3779b97f4a7c15ULL % nslot);
}

/* archive_tree_slots - an open-addressing table of the rows by id
 * (nslot > n slots, malloc'd) */
static size_t *
archive_tree_slots(const struct archive_row *rows, size_t n, size_t nslot)
{
	size_t *slot, i, h;

	if ((slot = reallocarray(NULL, nslot, sizeof(*slot))) == NULL)
		return NULL;
	memset(slot, 0xff, nslot * sizeof(*slot));
	for (i = 0; i < n; i++) {
		for (h = archive_tree_hash(rows[i].id, nslot);
		     slot[h] != (size_t)-1; h = (h + 1) % nslot)
			;
		slot[h] = i;
	}
	return slot;
}

/* archive_tree_parent - the position of row i's parent among the rows,
 * or n when it is not one of them */
static size_t
archive_tree_parent(const size_t *slot, size_t nslot,
    const struct archive_row *rows, size_t n, size_t i)
{
	size_t h;

	if (rows[i].parent == 0)
		return n;
	for (h = archive_tree_hash(rows[i].parent, nslot);
	     slot[h] != (size_t)-1; h = (h + 1) % nslot)
		if (rows[slot[h]].id == rows[i].parent)
			return slot[h] == i ? n : slot[h];
	return n;
}

/* The arrays of a tree: the children of row i are first[i], then
 * next[] of it; par[i] its parent's row or n. */
struct archive_tree {
	size_t *first, *next, *last, *par;
	size_t *snode, *schild; /* the walk's stack */
	char *sopen;
};

/* archive_tree_links - the children of each row, in the rows' order */
static void
archive_tree_links(struct archive_tree *t, const size_t *slot, size_t nslot,
    const struct archive_row *rows, size_t n)
{
	size_t i, p;

	for (i = 0; i < n; i++)
		t->first[i] = t->next[i] = t->last[i] = n;
	for (i = 0; i < n; i++) {
		t->par[i] = p = archive_tree_parent(slot, nslot, rows, n, i);
		if (p == n)
			continue;
		if (t->first[p] == n)
			t->first[p] = i;
		else
			t->next[t->last[p]] = i;
		t->last[p] = i;
	}
}

/* archive_tree_walk - the subtree of row top, depth first, with an
 * explicit stack (no recursion) */
static void
archive_tree_walk(FILE *fp, const struct archive_tree *t,
    const struct archive_row *rows, size_t n, size_t top, const char *root)
{
	size_t sp = 0, node, c;

	fputs("<li>", fp);
	archive_tree_item(fp, &rows[top], root);
	t->snode[sp] = top;
	t->schild[sp] = t->first[top];
	t->sopen[sp++] = 0;
	while (sp > 0) {
		node = t->snode[sp - 1];
		if ((c = t->schild[sp - 1]) != n) {
			t->schild[sp - 1] = t->next[c];
			if (c == t->first[node] && sp <= ARCHIVE_TREE_NEST) {
				fputs("<ul>", fp);
				t->sopen[sp - 1] = 1;
			}
			fputs("<li>", fp);
			archive_tree_item(fp, &rows[c], root);
			t->snode[sp] = c;
			t->schild[sp] = t->first[c];
			t->sopen[sp++] = 0;
			continue;
		}
		if (t->sopen[sp - 1])
			fputs("</ul>", fp);
		fputs("</li>\n", fp);
		sp--;
	}
}

/* archive_tree_show - the rows as trees */
int
archive_tree_show(
    FILE *fp, const struct archive_row *rows, size_t n, const char *root)
{
	struct archive_tree t;
	size_t nslot = n * 2 + 1, *slot, i;
	int r = 0;

	t.first = reallocarray(NULL, n + 1, sizeof(size_t));
	t.next = reallocarray(NULL, n + 1, sizeof(size_t));
	t.last = reallocarray(NULL, n + 1, sizeof(size_t));
	t.par = reallocarray(NULL, n + 1, sizeof(size_t));
	t.snode = reallocarray(NULL, n + 1, sizeof(size_t));
	t.schild = reallocarray(NULL, n + 1, sizeof(size_t));
	t.sopen = malloc(n + 1);
	slot = archive_tree_slots(rows, n, nslot);
	if (t.first == NULL || t.next == NULL || t.last == NULL ||
	    t.par == NULL || t.snode == NULL || t.schild == NULL ||
	    t.sopen == NULL || slot == NULL)
		r = -1;
	fputs("<ul class=\"threads\">\n", fp);
	if (r == 0) {
		archive_tree_links(&t, slot, nslot, rows, n);
		for (i = 0; i < n; i++)
			if (t.par[i] == n)
				archive_tree_walk(fp, &t, rows, n, i, root);
	}
	fputs("</ul>\n", fp);
	free(t.first);
	free(t.next);
	free(t.last);
	free(t.par);
	free(t.snode);
	free(t.schild);
	free(t.sopen);
	free(slot);
	return r;
}
