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
#include "subs_mode.h"

/* mode_addr_len - the length of the address a line (len bytes, without
 * its newline) subscribes, from *start; 0 for none */
static size_t
mode_addr_len(const char *line, size_t len, size_t *start)
{
	size_t i = 0, k;

	while (i < len && isspace((unsigned char)line[i]))
		i++;
	for (k = i;
	     k < len && line[k] != '#' && !isspace((unsigned char)line[k]); k++)
		;
	*start = i;
	return k - i;
}

/* mode_rest - the comment the line keeps after its address and mode
 * (from its '#'), or "" */
static const char *
mode_rest(const char *line, size_t len, size_t *restlen)
{
	const char *c = memchr(line, '#', len);

	*restlen = c != NULL ? len - (size_t)(c - line) : 0;
	return c != NULL ? c : "";
}

/* mode_line - addr's line written again with mode (each: no word) */
static void
mode_line(FILE *fp, const char *line, size_t len, size_t start, size_t alen,
    enum subs_mode mode)
{
	size_t restlen;
	const char *rest = mode_rest(line, len, &restlen);

	fwrite(line, 1, start + alen, fp);
	if (mode != SUBS_EACH)
		fprintf(fp, " %s", subs_mode_name(mode));
	if (restlen > 0)
		fprintf(fp, " %.*s", (int)restlen, rest);
}

/* subs_mode_set - addr's mode, under the subscribers lock */
int
subs_mode_set(const struct settings *s, const char *domain, const char *list,
    const char *addr, enum subs_mode mode)
{
	char path[PATH_MAX], *out = NULL, cur[32];
	const char *p, *end, *nl, *a;
	size_t outlen = 0, len, start, alen, wlen;
	struct lockedit le;
	int found = 0, same = 0, r = -1, m;
	FILE *fp;

	if (!name_addr_ok(addr) || listconf_path(path, sizeof(path), s, domain,
				       list, "subscribers") == -1) {
		errno = EINVAL;
		return -1;
	}
	if (lockedit_open(&le, path) == -1) {
		log_warn("cannot lock and read %s", path);
		return -1;
	}
	if ((fp = open_memstream(&out, &outlen)) == NULL)
		goto done;
	for (p = le.text, end = le.text + le.len; p < end; p = nl) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		len = (size_t)(nl - p) - (nl[-1] == '\n');
		alen = mode_addr_len(p, len, &start);
		if (found || alen != strlen(addr) ||
		    strncasecmp(p + start, addr, alen) != 0) {
			fwrite(p, 1, (size_t)(nl - p), fp);
			continue;
		}
		found = 1;
		/* the word now there, if any */
		a = p + start + alen;
		a += strspn(a, " \t");
		wlen = strcspn(a, " \t#\r\n");
		if (wlen >= sizeof(cur) || a + wlen > p + len)
			wlen = 0;
		memcpy(cur, a, wlen);
		cur[wlen] = '\0';
		m = wlen == 0 ? SUBS_EACH : subs_mode_parse(cur, wlen);
		same = m == (int)mode;
		mode_line(fp, p, len, start, alen, mode);
		fwrite(p + len, 1, (size_t)(nl - p) - len, fp);
	}
	if (fclose(fp) == EOF)
		goto done;
	if (!found)
		r = 2;
	else if (same)
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
