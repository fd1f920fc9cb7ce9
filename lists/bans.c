/*
 * bans.c - who may neither subscribe nor post.
 *
 * Two files of one pattern a line, the server's ([lists] bans_file,
 * for every list) and the list's (<list dir>/bans); blank lines and
 * lines starting with '#' are comments.  A pattern is
 *   ^...            a POSIX extended regular expression, matched
 *                   against the whole address, ignoring case
 *   @domain         every address of the domain (also *@domain, or a
 *   domain          bare domain), not its subdomains
 *   local@domain    that address, ignoring case
 * A bad pattern (a regex that does not compile, an address or domain
 * the address grammar refuses) is logged with its file and line and
 * left out: the rest still apply and the list keeps working.  At most
 * BANS_MAX patterns of BANS_PATTERN_MAX bytes are read from a file, so
 * the memory a ban list costs is bounded whatever the file holds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bans.h"
#include "list_path.h"
#include "io_lines.h"
#include "listconf.h"
#include "log.h"

/* What bans_parse is given: the file, the line it is at. */
struct bans_read {
	const char *path;
	size_t line, kept;
};

/* bans_kind - the kind of pattern pat is, or -1 (why in *why) */
static int
bans_kind(const char *pat, const char **why)
{
	char addr[NAME_ADDR_MAX + 1];
	const char *d = pat;

	if (pat[0] == '^')
		return BAN_REGEX;
	if (strncmp(d, "*@", 2) == 0)
		d += 2;
	else if (d[0] == '@')
		d++;
	else if (strchr(pat, '@') != NULL)
		return (*why = name_addr_check(pat)) == NULL ? BAN_ADDR : -1;
	/* a domain: whatever the address grammar takes after an '@' */
	if ((size_t)snprintf(addr, sizeof(addr), "x@%s", d) >= sizeof(addr)) {
		*why = "too long";
		return -1;
	}
	return (*why = name_addr_check(addr)) == NULL ? BAN_DOMAIN : -1;
}

/* bans_parse - io_lines_load's callback: one line of a ban file */
static int
bans_parse(char *line, void *rec, void *arg)
{
	struct bans_read *br = arg;
	struct ban *b = rec;
	const char *why = NULL;
	size_t len;
	int k;

	br->line++;
	line += strspn(line, " \t");
	len = strlen(line);
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
			      line[len - 1] == '\r'))
		line[--len] = '\0';
	if (len == 0 || line[0] == '#')
		return 1;
	if (br->kept >= BANS_MAX) {
		if (br->kept++ == BANS_MAX)
			log_warnx(
			    "%s line %zu: more than %d patterns: the rest "
			    "are left out",
			    br->path, br->line, BANS_MAX);
		return 1;
	}
	if (len >= sizeof(b->pat)) {
		log_warnx(
		    "%s line %zu: pattern longer than %zu bytes: left out",
		    br->path, br->line, sizeof(b->pat) - 1);
		return 1;
	}
	if ((k = bans_kind(line, &why)) == -1) {
		log_warnx("%s line %zu: bad pattern \"%s\" (%s): left out",
		    br->path, br->line, line, why);
		return 1;
	}
	memset(b, 0, sizeof(*b));
	b->kind = (enum ban_kind)k;
	memcpy(b->pat, line, len + 1);
	b->line = br->line; /* a regex is compiled where it stays */
	br->kept++;
	return 0;
}

/* bans_compile - the regexes of the n patterns from v[from] on
 * compiled; one that does not compile is logged and dropped.  The
 * number kept */
static size_t
bans_compile(struct ban *v, size_t from, size_t n, const char *path)
{
	char err[256];
	size_t i, k = from;
	int e;

	for (i = from; i < from + n; i++) {
		if (k != i)
			v[k] = v[i];
		if (v[k].kind == BAN_REGEX &&
		    (e = regcomp(&v[k].re, v[k].pat,
			 REG_EXTENDED | REG_ICASE | REG_NOSUB)) != 0) {
			(void)regerror(e, &v[k].re, err, sizeof(err));
			log_warnx("%s line %zu: bad regular expression \"%s\" "
				  "(%s): left out",
			    path, v[k].line, v[k].pat, err);
			continue;
		}
		k++;
	}
	return k;
}

/* bans_file - the patterns of path added to b (none when it is
 * missing); 0, or -1 with errno */
static int
bans_file(struct bans *b, const char *path)
{
	struct bans_read br = {path, 0, 0};
	struct ban *v, *nv;
	size_t n;

	if (io_lines_load(path, sizeof(*v), bans_parse, &br, (void **)&v, &n) ==
	    -1)
		return -1;
	if (n == 0) {
		free(v);
		return 0;
	}
	if ((nv = reallocarray(b->v, b->n + n, sizeof(*v))) == NULL) {
		free(v);
		return -1;
	}
	memcpy(nv + b->n, v, n * sizeof(*v));
	free(v);
	b->v = nv;
	b->n = bans_compile(b->v, b->n, n, path);
	return 0;
}

/* bans_load - the server's patterns, then the list's */
int
bans_load(const struct settings *s, const char *domain, const char *list,
    struct bans *b)
{
	char path[PATH_MAX];

	b->v = NULL, b->n = 0;
	if (s->lists_bans_file[0] != '\0' &&
	    bans_file(b, s->lists_bans_file) == -1) {
		log_warn("cannot read %s", s->lists_bans_file);
		goto fail;
	}
	if (list_path(path, sizeof(path), s, domain, list, BANS_FILE) == -1) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	if (bans_file(b, path) == -1) {
		log_warn("cannot read %s", path);
		goto fail;
	}
	return 0;
fail:
	bans_free(b);
	return -1;
}

/* bans_one - ban b covers addr */
static int
bans_one(const struct ban *b, const char *addr)
{
	const char *at = strrchr(addr, '@'), *d = b->pat;

	switch (b->kind) {
	case BAN_ADDR:
		return strcasecmp(b->pat, addr) == 0;
	case BAN_DOMAIN:
		d += strncmp(d, "*@", 2) == 0 ? 2 : d[0] == '@';
		return at != NULL && strcasecmp(at + 1, d) == 0;
	case BAN_REGEX:
		return regexec(&b->re, addr, 0, NULL, 0) == 0;
	}
	return 0;
}

/* bans_match - the first pattern that covers addr */
const char *
bans_match(const struct bans *b, const char *addr)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (bans_one(&b->v[i], addr))
			return b->v[i].pat;
	return NULL;
}

/* bans_check - whether addr is banned from the list, read anew */
int
bans_check(const struct settings *s, const char *domain, const char *list,
    const char *addr, char *why, size_t whylen)
{
	struct bans b;
	const char *pat;

	if (bans_load(s, domain, list, &b) == -1)
		return -1;
	if ((pat = bans_match(&b, addr)) != NULL && whylen > 0)
		(void)snprintf(why, whylen, "%s", pat);
	bans_free(&b);
	return pat != NULL;
}

/* bans_free - the patterns and their compiled regexes */
void
bans_free(struct bans *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->v[i].kind == BAN_REGEX)
			regfree(&b->v[i].re);
	free(b->v);
	b->v = NULL, b->n = 0;
}
