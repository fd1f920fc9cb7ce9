/*
 * subs_mode.c - each subscriber's mode, kept as a word after its address
 * on its line of <list dir>/subscribers:
 *
 *     alice@example.org
 *     bob@example.net digest          # comments stay where they are
 *     carol@example.com nomail
 *
 * A line without a word is "each", so every list written before modes
 * is read unchanged, and an administrator sets a mode by hand with the
 * same editor and lock as an address (flock subscribers.lock vi
 * subscribers).  One file keeps the address and its mode under one lock:
 * a removal takes the mode with it, nothing can name a mode for an
 * address that is not subscribed, and a post still reads its recipients
 * in one streamed pass, one line in core.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "listconf.h"
#include "lockedit.h"
#include "log.h"
#include "subs_edit.h"
#include "subs_line.h"
#include "subs_mode.h"

/* mode_rest - the comment the line keeps after its address and mode
 * (from its '#', subs_line.c), or "" */
static const char *
mode_rest(const char *line, size_t len, size_t *restlen)
{
	size_t k = subs_line_len(line, len);

	*restlen = len - k;
	return line + k;
}

/* subs_mode_line - addr's line (its address at start, alen bytes)
 * written again with mode (each: no word), its comment kept, without
 * the newline */
void
subs_mode_line(FILE *fp, const char *line, size_t len, size_t start,
    size_t alen, enum subs_mode mode)
{
	size_t restlen;
	const char *rest = mode_rest(line, len, &restlen);

	fwrite(line, 1, start + alen, fp);
	if (mode != SUBS_EACH)
		fprintf(fp, " %s", subs_mode_name(mode));
	if (restlen > 0)
		fprintf(fp, " %.*s", (int)restlen, rest);
}

/* What subs_mode_set's walk is given and finds. */
struct mode_walk {
	const char *addr;
	enum subs_mode mode;
	int found, same;
};

/* mode_walk_line - lockedit_lines' callback: addr's line (the first)
 * written again with the mode, whether it had it already noted */
static int
mode_walk_line(void *arg, FILE *fp, char *line, size_t len)
{
	struct mode_walk *mw = arg;
	size_t start, alen, wlen;
	const char *a;
	char cur[32];
	int m;

	if (line == NULL)
		return LOCKEDIT_COMMIT;
	alen = subs_line_addr(line, len, &start);
	if (mw->found || alen != strlen(mw->addr) ||
	    strncasecmp(line + start, mw->addr, alen) != 0)
		return LOCKEDIT_KEEP;
	mw->found = 1;
	/* the word now there, if any */
	a = line + start + alen;
	a += strspn(a, " \t");
	wlen = strcspn(a, " \t#\r\n");
	if (wlen >= sizeof(cur) || a + wlen > line + len)
		wlen = 0;
	memcpy(cur, a, wlen);
	cur[wlen] = '\0';
	m = wlen == 0 ? SUBS_EACH : subs_mode_parse(cur, wlen);
	mw->same = m == (int)mw->mode;
	subs_mode_line(fp, line, len, start, alen, mw->mode);
	return LOCKEDIT_REPLACE;
}

/* subs_mode_set - addr's mode, under the subscribers lock */
int
subs_mode_set(const struct settings *s, const char *domain, const char *list,
    const char *addr, enum subs_mode mode)
{
	struct mode_walk mw = {addr, mode, 0, 0};
	char path[PATH_MAX], *out = NULL;
	struct lockedit le;
	size_t outlen = 0;
	int r = -1;

	if (subs_edit_open(&le, path, sizeof(path), s, domain, list, addr) ==
	    -1)
		return -1;
	if (lockedit_lines(&le, 0, mode_walk_line, &mw, &out, &outlen) == -1)
		goto done;
	if (!mw.found)
		r = 2;
	else if (mw.same)
		r = 0;
	else if (lockedit_commit(&le, out, outlen) == -1)
		log_warn("cannot replace %s", path);
	else {
		log_info("%s@%s: %s set to %s", list, domain, addr,
		    subs_mode_name(mode));
		r = 1;
	}
done:
	free(out);
	lockedit_close(&le);
	return r;
}

/* What subs_mode_list collects. */
struct mode_vec {
	struct subs_mode_ent *v;
	size_t n, cap;
};

/* mode_push - listconf_subscribers_each_mode's callback */
static int
mode_push(void *arg, const char *addr, enum subs_mode mode)
{
	struct mode_vec *mv = arg;
	struct subs_mode_ent *nv;

	if (mv->n == mv->cap) {
		mv->cap = mv->cap ? mv->cap * 2 : 64;
		if ((nv = reallocarray(mv->v, mv->cap, sizeof(*nv))) == NULL)
			return -1;
		mv->v = nv;
	}
	if (strlcpy(mv->v[mv->n].addr, addr, sizeof(mv->v[mv->n].addr)) >=
	    sizeof(mv->v[mv->n].addr)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	mv->v[mv->n++].mode = mode;
	return 0;
}

/* mode_cmp - by address, for qsort */
static int
mode_cmp(const void *a, const void *b)
{
	return strcasecmp(((const struct subs_mode_ent *)a)->addr,
	    ((const struct subs_mode_ent *)b)->addr);
}

/* subs_mode_list - the subscribers and their modes, sorted */
int
subs_mode_list(const struct settings *s, const char *domain, const char *list,
    struct subs_mode_ent **v, size_t *n, char *err, size_t errlen)
{
	struct mode_vec mv = {NULL, 0, 0};

	*v = NULL;
	*n = 0;
	if (listconf_subscribers_each_mode(
		s, domain, list, mode_push, &mv, err, errlen) == -1) {
		free(mv.v);
		return -1;
	}
	if (mv.n > 1)
		qsort(mv.v, mv.n, sizeof(*mv.v), mode_cmp);
	*v = mv.v;
	*n = mv.n;
	return 0;
}
