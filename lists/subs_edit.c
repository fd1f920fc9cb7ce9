/*
 * subs_edit.c - change a list's subscribers file, one address at a time.
 *
 * <lists>/<domain>/<list>/subscribers is read, changed and replaced
 * under lockedit's lock (subscribers.lock beside it), so concurrent
 * runners and an administrator who takes the same lock never lose an
 * update.  Everything but the address concerned is kept byte for byte:
 * comments, order, blank lines, the administrator's layout.  Each change
 * is noted with its time in subscribers.since (subs_since.c), which binds
 * a one-click link to the subscription it was made for.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lockedit.h"
#include "list_path.h"
#include "log.h"
#include "listconf.h"
#include "subs_disabled.h"
#include "subs_edit.h"
#include "subs_line.h"
#include "subs_since.h"
#include "unsub_token.h"

/* subs_edit_is - the line (without its newline) subscribes addr: its
 * first word (subs_line.c), whatever mode word follows it (subs_mode.c) */
static int
subs_edit_is(const char *line, size_t len, const char *addr)
{
	size_t start, k = subs_line_addr(line, len, &start);

	return k == strlen(addr) && strncasecmp(line + start, addr, k) == 0;
}

/* What subs_edit_if's walk is given and finds. */
struct edit_walk {
	const struct lockedit *le;
	const char *addr;
	enum subs_op op;
	int found;
};

/* edit_line - lockedit_lines' callback: every line but addr's when it
 * is removed; addr at the end when it is added and was not there */
static int
edit_line(void *arg, FILE *fp, char *line, size_t len)
{
	struct edit_walk *ew = arg;
	const struct lockedit *le = ew->le;

	if (line == NULL) {
		if (ew->op == SUBS_ADD && !ew->found)
			fprintf(fp, "%s%s\n",
			    le->len > 0 && le->text[le->len - 1] != '\n' ? "\n"
									 : "",
			    ew->addr);
		return LOCKEDIT_COMMIT;
	}
	if (!subs_edit_is(line, len, ew->addr))
		return LOCKEDIT_KEEP;
	ew->found = 1;
	return ew->op == SUBS_REMOVE ? LOCKEDIT_DROP : LOCKEDIT_KEEP;
}

/* subs_edit_open - the subscribers file locked and read (its path in
 * path) for a change of addr's line; -1 with errno (EINVAL: a bad
 * address or list; a lock or read failure is logged) */
int
subs_edit_open(struct lockedit *le, char *path, size_t pathlen,
    const struct settings *s, const char *domain, const char *list,
    const char *addr)
{
	if (!name_addr_ok(addr) ||
	    list_path(path, pathlen, s, domain, list, "subscribers") == -1) {
		errno = EINVAL;
		return -1;
	}
	if (lockedit_open(le, path) == -1) {
		log_warn("cannot lock and read %s", path);
		return -1;
	}
	return 0;
}

/* subs_edit - add or remove addr; 1 changed, 0 already so, -1 error */
int
subs_edit(const struct settings *s, const struct lists_settings *ls,
    const char *domain, const char *list, enum subs_op op, const char *addr)
{
	return subs_edit_if(s, ls, domain, list, op, addr, -1);
}

/* subs_edit_if - as subs_edit; with issued >= 0 (a one-click link's
 * time) a removal is not done when addr's membership changed after
 * issued (the link was made for an earlier subscription): 2 then.  A
 * change is noted in subscribers.since first (subs_since.c). */
int
subs_edit_if(const struct settings *s, const struct lists_settings *ls,
    const char *domain, const char *list, enum subs_op op, const char *addr,
    long long issued)
{
	struct edit_walk ew = {NULL, addr, op, 0};
	char path[PATH_MAX], *out = NULL;
	struct lockedit le;
	size_t outlen = 0;
	long long since = 0;
	int found, r = -1;

	if (subs_edit_open(&le, path, sizeof(path), s, domain, list, addr) ==
	    -1)
		return -1;
	ew.le = &le;
	if (lockedit_lines(&le, 0, edit_line, &ew, &out, &outlen) == -1)
		goto done;
	found = ew.found;
	if (issued >= 0 && found && op == SUBS_REMOVE &&
	    (since = subs_since_get(path, addr)) != 0) {
		if (since == -1) {
			log_warn("cannot read %s%s", path, SUBS_SINCE_SUFFIX);
			goto done;
		}
		if (since > issued) {
			r = 2; /* a link of an earlier subscription */
			goto done;
		}
	}
	if ((op == SUBS_ADD) == found) {
		r = 0; /* nothing to write */
	} else if (subs_since_note(path, addr, (long long)time(NULL),
		       ls->unsubscribe_token_lifetime + UNSUB_QUEUE_GRACE) ==
		   -1) {
		log_warn(
		    "cannot note the change in %s%s", path, SUBS_SINCE_SUFFIX);
	} else if (lockedit_commit(&le, out, outlen) == -1) {
		log_warn("cannot replace %s", path);
	} else if (op == SUBS_REMOVE &&
		   subs_disabled_drop_at(path, addr) == -1) {
		log_warn("cannot drop %s from %s%s", addr, path,
		    SUBS_DISABLED_SUFFIX);
	} else {
		log_info("%s@%s: %s %s", list, domain,
		    op == SUBS_ADD ? "subscribed" : "unsubscribed", addr);
		r = 1;
	}
done:
	free(out);
	lockedit_close(&le);
	return r;
}

/* subs_edit_member - 1 when addr is subscribed, 0 not, -1 error: a
 * streamed scan of the subscribers file (listconf_subscribers_find) */
int
subs_edit_member(const struct settings *s, const char *domain, const char *list,
    const char *addr)
{
	char err[512];
	int found;

	if (listconf_subscribers_find(
		s, domain, list, &addr, &found, 1, err, sizeof(err)) == -1) {
		log_warnx("%s@%s: %s", list, domain, err);
		return -1;
	}
	return found;
}
