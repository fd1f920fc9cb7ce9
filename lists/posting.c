/*
 * posting.c - who may post to a list.
 *
 * The poster is known by two addresses: the author (From) and the
 * envelope sender (Return-Path).  A post is accepted when either is
 * allowed by the list's posting policy, so a subscriber who posts through
 * a forwarder or a mailing service still gets through.  Addresses are
 * compared case-insensitively (the domain must be, RFC 5321 2.4).
 *
 * The subscribers file is read as the post's snapshot reads it, a line
 * at a time, once for both addresses (listconf_subscribers_find): a list
 * of any size costs no more memory to check.  The runner calls this on
 * a list thread, not on the thread that runs its deliveries.
 *
 * Both addresses can be forged by any sender: this keeps out spam that
 * does not know a subscriber's address, not a forger who does
 * (docs/posting.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "listconf.h"
#include "list_path.h"
#include "log.h"
#include "posting.h"

/* posting_moderators - the list's moderators: [list] moderators, or the
 * owners when it is empty */
int
posting_moderators(const struct listconf *lc, char ***out, size_t *n)
{
	return listconf_split(
	    lc->moderators[0] != '\0' ? lc->moderators : lc->owners, out, n);
}

/* posting_is_moderator - addr moderates the list (or owns it) */
int
posting_is_moderator(const struct listconf *lc, const char *addr)
{
	return listconf_in(lc->owners, addr) ||
	       (lc->moderators[0] != '\0' && listconf_in(lc->moderators, addr));
}

/* posting_pattern - one accept_from line matches addr: an address, or
 * "*@domain" for every address of the domain */
static int
posting_pattern(const char *pat, const char *addr)
{
	const char *at;

	if (strncmp(pat, "*@", 2) == 0)
		return (at = strrchr(addr, '@')) != NULL &&
		       strcasecmp(at + 1, pat + 2) == 0;
	return strcasecmp(pat, addr) == 0;
}

/* posting_accept_from - addr matches a line of the list's accept_from
 * file; 1 yes, 0 no, -1 when the file cannot be read */
static int
posting_accept_from(const struct settings *s, const char *domain,
    const char *list, const struct listconf *lc, const char *addr)
{
	char path[PATH_MAX], *line = NULL, *p, *e;
	size_t cap = 0;
	FILE *fp;
	int r = 0;

	if (lc->accept_from[0] == '\0')
		return 0;
	if (lc->accept_from[0] == '/') {
		if (strlcpy(path, lc->accept_from, sizeof(path)) >=
		    sizeof(path))
			return -1;
	} else if (list_path(path, sizeof(path), s, domain, list,
		       lc->accept_from) == -1)
		return -1;
	if ((fp = fopen(path, "re")) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (r == 0 && getline(&line, &cap, fp) != -1) {
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		p = line + strspn(line, " \t");
		e = p + strcspn(p, " \t\r\n");
		*e = '\0';
		if (*p != '\0')
			r = posting_pattern(p, addr);
	}
	if (ferror(fp))
		r = -1;
	free(line);
	fclose(fp);
	return r;
}

/* posting_named - addr may post as a moderator, owner or accept_from
 * sender; -1 when accept_from cannot be read */
static int
posting_named(const struct settings *s, const char *domain, const char *list,
    const struct listconf *lc, const char *addr)
{
	if (posting_is_moderator(lc, addr))
		return 1;
	return posting_accept_from(s, domain, list, lc, addr);
}

/* posting_subscribed - one of the n addresses is a subscriber: one
 * streamed pass over the subscribers file for all of them; -1 when it
 * cannot be read */
static int
posting_subscribed(const struct settings *s, const char *domain,
    const char *list, const char *const *addr, size_t n)
{
	char err[PATH_MAX + 100];
	int found[2] = {0, 0};
	size_t i;

	if (listconf_subscribers_find(
		s, domain, list, addr, found, n, err, sizeof(err)) == -1) {
		log_warnx("%s@%s: %s", list, domain, err);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (found[i])
			return 1;
	return 0;
}

/* posting_allowed - from or sender may post under the policy; -1 on I/O
 * errors */
static int
posting_allowed(const struct settings *s, const char *domain, const char *list,
    const struct listconf *lc, const char *from, const char *sender)
{
	const char *addr[2];
	size_t n = 0, i;
	int r;

	if (from[0] != '\0')
		addr[n++] = from;
	if (sender[0] != '\0' && strcasecmp(from, sender) != 0)
		addr[n++] = sender;
	for (i = 0; i < n; i++)
		if ((r = posting_named(s, domain, list, lc, addr[i])) != 0)
			return r;
	if (lc->posting == POSTING_SUBSCRIBERS && n > 0)
		return posting_subscribed(s, domain, list, addr, n);
	return 0;
}

/* posting_check - what to do with a post from the author from and the
 * envelope sender sender (either may be ""): POSTING_ACCEPT, or the
 * action with why it was taken; -1 when the list's files cannot be
 * read (try again later) */
int
posting_check(const struct settings *s, const char *domain, const char *list,
    const struct listconf *lc, const char *from, const char *sender, char *why,
    size_t whylen)
{
	int r;

	why[0] = '\0';
	if (lc->posting == POSTING_OPEN)
		return POSTING_ACCEPT;
	if ((r = posting_allowed(s, domain, list, lc, from, sender)) == -1)
		return -1;
	if (r == 1)
		return POSTING_ACCEPT;
	switch (lc->posting) {
	case POSTING_MODERATED:
		snprintf(why, whylen, "the list is moderated (posting = %s)",
		    posting_conf_name(lc->posting));
		return POSTING_HOLD;
	case POSTING_OWNERS:
		snprintf(why, whylen,
		    "<%s> is not an owner or moderator (posting = %s)",
		    from[0] ? from : sender, posting_conf_name(lc->posting));
		break;
	default:
		snprintf(why, whylen, "<%s> is not a subscriber (posting = %s)",
		    from[0] ? from : sender, posting_conf_name(lc->posting));
		break;
	}
	return lc->nonmember_action;
}
