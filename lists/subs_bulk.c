/*
 * subs_bulk.c - many subscribers added, removed or given a mode in one
 * streamed pass over the subscribers file, under its lock.
 *
 * The file is never held in core: it is read a line at a time and
 * copied to subscribers.tmp (lockedit.h), which replaces it at the end,
 * so a failure or a crash halfway leaves the old file whole.  Which
 * addresses are there is kept in an addr_set (8 bytes a slot, where to
 * read the address again, addr_set.c):
 *   add     every address of the file goes into the set as its line is
 *           copied (where = its offset in the new file); each address
 *           given is looked up, and appended when it is new
 *   remove, the addresses given go first into a temporary file, one
 *   mode    "F LINE ADDRESS" line each (F turns from 0 to 1 once the
 *           address is found), and into the set (where = their offset
 *           there); the file is then copied with their lines left out
 *           or given the mode; the lines still 0 are the addresses that
 *           were not subscribed
 * A million addresses cost the set's 16 MB and two stdio buffers.
 * Everything but the lines concerned is kept byte for byte.  A remove
 * notes the addresses it removed in subscribers.since (subs_since.c)
 * before the new file replaces the old one, as subs_edit does for one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "addr_set.h"
#include "list_path.h"
#include "listconf.h"
#include "lockedit.h"
#include "log.h"
#include "subs_bulk.h"
#include "subs_disabled.h"
#include "subs_line.h"
#include "subs_since.h"

/* One run: the files and the set. */
struct bulk {
	struct subs_bulk *b;
	FILE *out;   /* the new file (an unnamed one for a dry run) */
	FILE *given; /* remove, mode: the addresses given */
	struct addr_set set;
	off_t hit; /* where the last match of bulk_same_given was */
	/* remove: the disabled subscribers (subs_disabled.c), and those
	 * of them removed, whose lines go from subscribers.disabled */
	struct subs_disabled *off;
	size_t noff, ngone;
	const struct subs_disabled **gone;
	char buf[NAME_ADDR_MAX + 64];
};

/* bulk_read_at - the line of fp's file at where into bk->buf (the
 * newline cut); its length, or -1 */
static ssize_t
bulk_read_at(struct bulk *bk, FILE *fp, off_t where)
{
	ssize_t n;

	if (fflush(fp) == EOF ||
	    (n = pread(fileno(fp), bk->buf, sizeof(bk->buf) - 1, where)) == -1)
		return -1;
	bk->buf[n] = '\0';
	n = (ssize_t)strcspn(bk->buf, "\n");
	bk->buf[n] = '\0';
	return n;
}

/* bulk_same_out - addr_set's confirmation: the line of the new file at
 * where names addr */
static int
bulk_same_out(void *arg, off_t where, const char *addr)
{
	struct bulk *bk = arg;
	ssize_t n = bulk_read_at(bk, bk->out, where);
	size_t start, k;

	if (n < 0)
		return 0;
	k = subs_line_addr(bk->buf, (size_t)n, &start);
	return k == strlen(addr) && strncasecmp(bk->buf + start, addr, k) == 0;
}

/* bulk_same_given - the same for a line of the addresses given ("F
 * LINE ADDRESS"); a match's place is kept in bk->hit */
static int
bulk_same_given(void *arg, off_t where, const char *addr)
{
	struct bulk *bk = arg;
	ssize_t n = bulk_read_at(bk, bk->given, where);
	const char *a;

	if (n < 0 || (a = strrchr(bk->buf, ' ')) == NULL)
		return 0;
	if (strcasecmp(a + 1, addr) != 0)
		return 0;
	bk->hit = where;
	return 1;
}

/* bulk_addr - the address of a subscribers line into buf, or 0 */
static int
bulk_addr(const char *line, size_t len, char *buf, size_t size)
{
	size_t start, k = subs_line_addr(line, len, &start);

	if (k == 0 || k >= size)
		return 0;
	memcpy(buf, line + start, k);
	buf[k] = '\0';
	return 1;
}

/* bulk_tell - count a result and pass it on */
static int
bulk_tell(struct bulk *bk, const char *addr, unsigned long line,
    enum subs_bulk_result r)
{
	bk->b->count[r]++;
	return bk->b->told(bk->b->arg, addr, line, r);
}

/* bulk_add - copy the file to out, its addresses into the set; then
 * append each address given that is not there */
static int
bulk_add(struct bulk *bk, FILE *in)
{
	char *line = NULL, addr[NAME_ADDR_MAX + 1];
	size_t cap = 0, len = 0;
	unsigned long ln;
	ssize_t n;
	off_t off;
	int r = -1, k;

	while (in != NULL && (n = getline(&line, &cap, in)) != -1) {
		len = (size_t)n;
		if ((off = ftello(bk->out)) == -1 ||
		    fwrite(line, 1, len, bk->out) != len)
			goto done;
		if (bulk_addr(line, len - (line[len - 1] == '\n'), addr,
			sizeof(addr)) &&
		    addr_set_seen(&bk->set, addr, off, bulk_same_out, bk) == -1)
			goto done;
	}
	if (in != NULL && ferror(in))
		goto done;
	if (len > 0 && line[len - 1] != '\n' && putc('\n', bk->out) == EOF)
		goto done;
	while ((k = bk->b->next(bk->b->arg, addr, sizeof(addr), &ln)) == 1) {
		if ((off = ftello(bk->out)) == -1 ||
		    (k = addr_set_seen(
			 &bk->set, addr, off, bulk_same_out, bk)) == -1)
			goto done;
		if (k == 0 && fprintf(bk->out, "%s\n", addr) < 0)
			goto done;
		if (bulk_tell(bk, addr, ln,
			k ? SUBS_BULK_ALREADY : SUBS_BULK_DONE) == -1)
			goto done;
	}
	r = k;
done:
	free(line);
	return r;
}

/* bulk_given - remove, mode: the addresses given into the temporary
 * file and the set; one given twice is told as repeated */
static int
bulk_given(struct bulk *bk)
{
	char addr[NAME_ADDR_MAX + 1];
	unsigned long ln;
	off_t off;
	int k;

	while ((k = bk->b->next(bk->b->arg, addr, sizeof(addr), &ln)) == 1) {
		if ((off = ftello(bk->given)) == -1 ||
		    (k = addr_set_seen(
			 &bk->set, addr, off, bulk_same_given, bk)) == -1)
			return -1;
		if (k == 1) {
			if (bulk_tell(bk, addr, ln, SUBS_BULK_REPEATED) == -1)
				return -1;
		} else if (fprintf(bk->given, "0 %lu %s\n", ln, addr) < 0)
			return -1;
	}
	return k == 0 && fflush(bk->given) != EOF ? 0 : -1;
}

/* bulk_mark - the address given at bk->hit is found: its F turned to
 * 1; 1 when it was 0 (the first line of that address) */
static int
bulk_mark(struct bulk *bk, unsigned long *ln)
{
	char f;

	if (pread(fileno(bk->given), &f, 1, bk->hit) != 1)
		return -1;
	*ln = strtoul(bk->buf + 2, NULL, 10); /* read by bulk_same_given */
	if (f == '1')
		return 0;
	return pwrite(fileno(bk->given), "1", 1, bk->hit) == 1 ? 1 : -1;
}

/* bulk_line_mode - the mode a subscribers line gives now */
static int
bulk_line_mode(const char *line, size_t len)
{
	size_t start, k = subs_line_addr(line, len, &start), w;
	const char *a = line + start + k;

	len = subs_line_len(line, len) - (start + k);
	while (len > 0 && (*a == ' ' || *a == '\t'))
		a++, len--;
	for (w = 0; w < len && a[w] != ' ' && a[w] != '\t' && a[w] != '\r';)
		w++;
	return w == 0 ? SUBS_EACH : subs_mode_parse(a, w);
}

/* bulk_one - one line of the file whose address was given: left out
 * (remove) or written with the mode; *dropped when removed */
static int
bulk_one(
    struct bulk *bk, char *line, size_t len, const char *addr, int *dropped)
{
	size_t start, k = subs_line_addr(line, len, &start);
	unsigned long ln;
	int first, same;

	if ((first = bulk_mark(bk, &ln)) == -1)
		return -1;
	if (bk->b->op == SUBS_BULK_REMOVE) {
		*dropped = 1;
		return first ? bulk_tell(bk, addr, ln, SUBS_BULK_DONE) : 0;
	}
	if ((same = bulk_line_mode(line, len) == (int)bk->b->mode))
		(void)fwrite(line, 1, len, bk->out); /* as it was */
	else
		subs_mode_line(bk->out, line, len, start, k, bk->b->mode);
	if (putc('\n', bk->out) == EOF)
		return -1;
	return first ? bulk_tell(bk, addr, ln,
			   same ? SUBS_BULK_ALREADY : SUBS_BULK_DONE)
		     : 0;
}

/* bulk_gone - a disabled subscriber removed: its disabled line goes
 * too, once the file is replaced */
static int
bulk_gone(struct bulk *bk, const char *addr)
{
	const struct subs_disabled *d;

	if ((d = subs_disabled_find(bk->off, bk->noff, addr)) == NULL)
		return 0;
	if (bk->gone == NULL &&
	    (bk->gone = calloc(bk->noff, sizeof(*bk->gone))) == NULL)
		return -1;
	if (bk->ngone < bk->noff)
		bk->gone[bk->ngone++] = d;
	return 0;
}

/* bulk_change - remove, mode: the file copied to out, the lines of the
 * addresses given left out or given the mode */
static int
bulk_change(struct bulk *bk, FILE *in)
{
	char *line = NULL, addr[NAME_ADDR_MAX + 1];
	size_t cap = 0, len;
	ssize_t n;
	int r = -1, dropped, nl;

	if (bulk_given(bk) == -1)
		goto done;
	while (in != NULL && (n = getline(&line, &cap, in)) != -1) {
		len = (size_t)n;
		len -= nl = line[len - 1] == '\n';
		dropped = 0;
		if (bulk_addr(line, len, addr, sizeof(addr)) &&
		    addr_set_find(&bk->set, addr, bulk_same_given, bk)) {
			if (bulk_one(bk, line, len, addr, &dropped) == -1 ||
			    (dropped && bulk_gone(bk, addr) == -1))
				goto done;
			continue;
		}
		if (fwrite(line, 1, len + nl, bk->out) != len + nl)
			goto done;
	}
	r = in != NULL && ferror(in) ? -1 : 0;
done:
	free(line);
	return r;
}

/* What bulk_given_walk calls for a given address: its line number. */
typedef int bulk_given_fn(
    struct bulk *bk, const char *addr, unsigned long line, void *arg);

/* bulk_given_walk - fn for each address given whose flag (F, '0' not
 * found, '1' found) is flag; 0, or -1 */
static int
bulk_given_walk(struct bulk *bk, char flag, bulk_given_fn *fn, void *arg)
{
	char *line = NULL, *a;
	size_t cap = 0;
	int r = 0;

	if (fseeko(bk->given, 0, SEEK_SET) == -1)
		return -1;
	while (r == 0 && getline(&line, &cap, bk->given) != -1) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] != flag || (a = strrchr(line, ' ')) == NULL)
			continue;
		r = fn(bk, a + 1, strtoul(line + 2, NULL, 10), arg);
	}
	if (ferror(bk->given))
		r = -1;
	free(line);
	return r;
}

/* bulk_not_member - bulk_given_walk's fn: told not subscribed */
static int
bulk_not_member(
    struct bulk *bk, const char *addr, unsigned long line, void *arg)
{
	(void)arg;
	return bulk_tell(bk, addr, line, SUBS_BULK_NOT_MEMBER);
}

/* bulk_unfound - the addresses given that no line named */
static int
bulk_unfound(struct bulk *bk)
{
	return bulk_given_walk(bk, '0', bulk_not_member, NULL);
}

/* bulk_pass - the pass of the operation over the file in (NULL: none
 * yet), the new text in bk->out */
static int
bulk_pass(struct bulk *bk, const struct settings *s, const char *domain,
    const char *list, FILE *in)
{
	if (bk->b->op == SUBS_BULK_ADD)
		return bulk_add(bk, in);
	if ((bk->given = tmpfile()) == NULL)
		return -1;
	if (bk->b->op == SUBS_BULK_REMOVE &&
	    subs_disabled_load(s, domain, list, &bk->off, &bk->noff) == -1)
		return -1;
	return bulk_change(bk, in) == -1 ? -1 : bulk_unfound(bk);
}

/* What bulk_since_line writes: the file, the time. */
struct bulk_since {
	FILE *out;
	long long now;
};

/* bulk_since_line - bulk_given_walk's fn: a removed address's line */
static int
bulk_since_line(
    struct bulk *bk, const char *addr, unsigned long line, void *arg)
{
	const struct bulk_since *bs = arg;

	(void)bk, (void)line;
	return fprintf(bs->out, "%s %lld\n", addr, bs->now) < 0 ? -1 : 0;
}

/* bulk_since_each - subs_since_note_each's lines: the addresses given
 * that were found (removed) */
static int
bulk_since_each(void *arg, FILE *out, long long now)
{
	struct bulk_since bs = {out, now};

	return bulk_given_walk(arg, '1', bulk_since_line, &bs);
}

/* bulk_finish - the new file replaces the old one when something
 * changed (not on a dry run), a remove noted first in
 * subscribers.since; then the removed disabled lines go */
static int
bulk_finish(struct bulk *bk, struct lockedit *le, FILE *out, int ok)
{
	size_t i;

	if (bk->b->dry_run) {
		fclose(out);
		return ok;
	}
	if (ok == -1 || bk->b->count[SUBS_BULK_DONE] == 0) {
		lockedit_tmp_abort(le, out);
		return ok;
	}
	if (bk->b->op == SUBS_BULK_REMOVE &&
	    subs_since_note_each(le->path, bulk_since_each, bk,
		(long long)time(NULL), bk->b->since_keep) == -1) {
		lockedit_tmp_abort(le, out);
		return -1;
	}
	if (lockedit_tmp_commit(le, out) == -1)
		return -1;
	for (i = 0; i < bk->ngone; i++)
		if (subs_disabled_drop_at(le->path, bk->gone[i]->addr) == -1)
			log_warn("cannot drop %s from %s%s", bk->gone[i]->addr,
			    le->path, SUBS_DISABLED_SUFFIX);
	return 0;
}

/* subs_bulk_run - the operation b describes on the list, under the
 * subscribers lock; 0, or -1 with err (the file is as it was) */
int
subs_bulk_run(const struct settings *s, const char *domain, const char *list,
    struct subs_bulk *b, char *err, size_t errlen)
{
	struct bulk bk;
	struct lockedit le;
	char path[PATH_MAX];
	FILE *in = NULL;
	int r = -1, pr;

	memset(&bk, 0, sizeof(bk));
	bk.b = b;
	memset(b->count, 0, sizeof(b->count));
	if (list_path(path, sizeof(path), s, domain, list, "subscribers") ==
	    -1) {
		snprintf(err, errlen, "list path too long");
		return -1;
	}
	if (lockedit_hold(&le, path) == -1) {
		snprintf(err, errlen, "cannot lock %s.lock: %s", path,
		    strerror(errno));
		return -1;
	}
	if ((in = fopen(path, "re")) == NULL && errno != ENOENT)
		snprintf(
		    err, errlen, "cannot read %s: %s", path, strerror(errno));
	else if ((bk.out = b->dry_run ? tmpfile() : lockedit_tmp_open(&le)) ==
		 NULL)
		snprintf(err, errlen, "cannot write %s.tmp: %s", path,
		    strerror(errno));
	else {
		if ((pr = bulk_pass(&bk, s, domain, list, in)) == -1)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if ((r = bulk_finish(&bk, &le, bk.out, pr)) == -1 && pr != -1)
			snprintf(err, errlen, "cannot replace %s: %s", path,
			    strerror(errno));
	}
	if (in != NULL)
		fclose(in);
	if (bk.given != NULL)
		fclose(bk.given);
	addr_set_free(&bk.set);
	free(bk.off);
	free(bk.gone);
	lockedit_close(&le);
	return r;
}
