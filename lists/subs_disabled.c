/*
 * subs_disabled.c - subscribers whose delivery is disabled after their
 * bounces: they stay in the subscribers file, and get no posts while
 * they have a line in <list dir>/subscribers.disabled:
 *
 *     <address> <since> <probes> <probe time> <token> <failed> <why>
 *
 * since and probe time in seconds since the epoch (probe time 0 before
 * the first probe), probes the number of probes sent, token the last
 * probe's (its VERP envelope sender <list>-owner+probe-<token>@<domain>)
 * or "-", failed 1 when that probe bounced, why in words for people.
 * Written like subscribers.since: by lockedit (subscribers.disabled.lock)
 * while the subscribers lock is held, so an address is disabled only
 * while it is subscribed, and subs_edit drops the line of an address it
 * removes under the same lock.  An administrator enables an address by
 * deleting its line (flock subscribers.lock, then the file's own lock).
 * The probes' decisions (read the file, send a probe, write its token)
 * hold subscribers.disabled.probe.lock from the read to the write
 * (subs_disabled_hold), taken before the subscribers lock and never
 * under it: two runners never each send a probe of one address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io_lines.h"
#include "list_path.h"
#include "listconf.h"
#include "lockedit.h"
#include "subs_disabled.h"

/* disabled_path - subscribers.disabled beside the subscribers file */
static int
disabled_path(char *buf, size_t len, const char *subscribers)
{
	int n = snprintf(buf, len, "%s%s", subscribers, SUBS_DISABLED_SUFFIX);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* disabled_is - the line (NUL-ended, no newline) is addr's */
static int
disabled_is(const char *line, const char *addr)
{
	size_t alen = strlen(addr);

	return strncasecmp(line, addr, alen) == 0 &&
	       (line[alen] == ' ' || line[alen] == '\0');
}

/* disabled_parse - one line into d; 0, or -1 when it is damaged */
static int
disabled_parse(const char *line, struct subs_disabled *d)
{
	int k = 0;

	memset(d, 0, sizeof(*d));
	if (sscanf(line, "%254s %lld %d %lld %16s %d %n", d->addr, &d->since,
		&d->probes, &d->probe_time, d->token, &d->failed, &k) < 6)
		return -1;
	(void)strlcpy(d->why, line + k, sizeof(d->why)); /* may be cut */
	return 0;
}

/* What disabled_rewrite's walk is given and finds. */
struct disabled_walk {
	const char *addr;
	const struct subs_disabled *d;
	int had;
};

/* disabled_walk_line - lockedit_lines' callback: every line but addr's,
 * then d's at the end */
static int
disabled_walk_line(void *arg, FILE *fp, char *line, size_t len)
{
	struct disabled_walk *dw = arg;
	const struct subs_disabled *d = dw->d;

	(void)len;
	if (line != NULL) {
		if (!disabled_is(line, dw->addr))
			return LOCKEDIT_KEEP;
		dw->had = 1;
		return LOCKEDIT_DROP;
	}
	if (d == NULL)
		return dw->had ? LOCKEDIT_COMMIT : LOCKEDIT_LEAVE;
	fprintf(fp, "%s %lld %d %lld %s %d %s\n", d->addr, d->since, d->probes,
	    d->probe_time, d->token[0] ? d->token : "-", d->failed, d->why);
	return LOCKEDIT_COMMIT;
}

/* disabled_rewrite - the file at path without addr's line, and with
 * d's when d is not NULL; 1 when addr had a line, 0 not, -1 error */
static int
disabled_rewrite(
    const char *path, const char *addr, const struct subs_disabled *d)
{
	struct disabled_walk dw = {addr, d, 0};

	if (lockedit_rewrite(path, LOCKEDIT_RECORDS, disabled_walk_line, &dw) ==
	    -1)
		return -1;
	return dw.had;
}

/* subs_disabled_drop_at - addr's line out of the file beside
 * subscribers (its caller holds the subscribers lock) */
int
subs_disabled_drop_at(const char *subscribers, const char *addr)
{
	char path[PATH_MAX];

	if (disabled_path(path, sizeof(path), subscribers) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return disabled_rewrite(path, addr, NULL);
}

/* subs_disabled_edit - under the subscribers lock, d's line written
 * (when addr is subscribed) or addr's dropped (d NULL) */
static int
subs_disabled_edit(const struct settings *s, const char *domain,
    const char *list, const char *addr, const struct subs_disabled *d)
{
	char subs[PATH_MAX], path[PATH_MAX], err[300];
	struct lockedit le;
	int found, r;

	if (!name_addr_ok(addr) ||
	    list_path(subs, sizeof(subs), s, domain, list, "subscribers") ==
		-1 ||
	    disabled_path(path, sizeof(path), subs) == -1) {
		errno = EINVAL;
		return -1;
	}
	if (lockedit_open(&le, subs) == -1)
		return -1;
	if (d != NULL && listconf_subscribers_find(s, domain, list, &addr,
			     &found, 1, err, sizeof(err)) == -1)
		r = -1;
	else if (d != NULL && !found)
		r = 0;
	else if ((r = disabled_rewrite(path, addr, d)) != -1 && d != NULL)
		r = 1;
	lockedit_close(&le);
	return r;
}

/* subs_disabled_hold - the probes' lock of the list */
int
subs_disabled_hold(const struct settings *s, const char *domain,
    const char *list, struct lockedit *le)
{
	char subs[PATH_MAX], path[PATH_MAX];
	int n;

	if (list_path(subs, sizeof(subs), s, domain, list, "subscribers") ==
		-1 ||
	    (n = snprintf(path, sizeof(path), "%s%s%s", subs,
		 SUBS_DISABLED_SUFFIX, SUBS_DISABLED_PROBE)) < 0 ||
	    (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return lockedit_hold(le, path);
}

/* subs_disabled_set - disable d->addr, or change its probe state */
int
subs_disabled_set(const struct settings *s, const char *domain,
    const char *list, const struct subs_disabled *d)
{
	return subs_disabled_edit(s, domain, list, d->addr, d);
}

/* subs_disabled_drop - enable addr again */
int
subs_disabled_drop(const struct settings *s, const char *domain,
    const char *list, const char *addr)
{
	return subs_disabled_edit(s, domain, list, addr, NULL);
}

/* disabled_cmp - by address, for qsort and bsearch */
static int
disabled_cmp(const void *a, const void *b)
{
	return strcasecmp(((const struct subs_disabled *)a)->addr,
	    ((const struct subs_disabled *)b)->addr);
}

/* disabled_line - io_lines_load's parse: an undamaged line */
static int
disabled_line(char *line, void *rec, void *arg)
{
	struct subs_disabled *d = rec;

	(void)arg;
	return disabled_parse(line, d) == -1 || !name_addr_ok(d->addr) ? -1 : 0;
}

/* subs_disabled_load - every disabled address of the list */
int
subs_disabled_load(const struct settings *s, const char *domain,
    const char *list, struct subs_disabled **v, size_t *n)
{
	char subs[PATH_MAX], path[PATH_MAX];

	*v = NULL, *n = 0;
	if (list_path(subs, sizeof(subs), s, domain, list, "subscribers") ==
		-1 ||
	    disabled_path(path, sizeof(path), subs) == -1 ||
	    io_lines_load(
		path, sizeof(**v), disabled_line, NULL, (void **)v, n) == -1)
		return -1;
	if (*n > 1)
		qsort(*v, *n, sizeof(**v), disabled_cmp);
	return 0;
}

/* subs_disabled_token - the address whose last probe has token */
int
subs_disabled_token(const struct settings *s, const char *domain,
    const char *list, const char *token, struct subs_disabled *d)
{
	struct subs_disabled *v;
	size_t n, i;
	int r = 0;

	if (strlen(token) != SUBS_DISABLED_TOKEN ||
	    strspn(token, "0123456789abcdefABCDEF") != SUBS_DISABLED_TOKEN)
		return 0; /* never "-", the token of no probe yet */
	if (subs_disabled_load(s, domain, list, &v, &n) == -1)
		return -1;
	for (i = 0; i < n && r == 0; i++)
		if (strcasecmp(v[i].token, token) == 0) {
			*d = v[i];
			r = 1;
		}
	free(v);
	return r;
}

/* subs_disabled_find - addr's line among v */
const struct subs_disabled *
subs_disabled_find(const struct subs_disabled *v, size_t n, const char *addr)
{
	struct subs_disabled key;

	if (n == 0 ||
	    strlcpy(key.addr, addr, sizeof(key.addr)) >= sizeof(key.addr))
		return NULL;
	return bsearch(&key, v, n, sizeof(*v), disabled_cmp);
}
