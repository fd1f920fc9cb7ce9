/*
 * listconf.c - a list's configuration and subscribers, from [lists] dir:
 * <dir>/<domain>/<list>/config (INI, section [list]) and
 * <dir>/<domain>/<list>/subscribers (one address per line, # comments;
 * a word after the address is the subscriber's mode, subs_mode.h: a line
 * without one is "each", so a list written before modes reads the same).
 *
 * Read at expansion time only: the subscribers become the message's state
 * file, so what is read here is never read again for that message.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addr_set.h"
#include "list_path.h"
#include "content_filter.h"
#include "dmarc.h"
#include "head_rules.h"
#include "log.h"
#include "listconf.h"
#include "posting_conf.h"
#include "subs_mode.h"
#include "subs_line.h"

#define L(f) offsetof(struct listconf, f)
#define LSTR(n, f)                                                             \
	{                                                                      \
		n, CONF_STR, "", 0, sizeof(((struct listconf *)0)->f), L(f),   \
		    NULL                                                       \
	}

/* listconf_score - a bounce score or weight, 0 .. 10000 with at most two
 * decimals ("5", "0.5", "2.25"), in hundredths */
static int
listconf_score(const char *text, void *var, char *err, size_t errlen)
{
	const char *p = text;
	long long v = 0;
	int k;

	for (; *p >= '0' && *p <= '9' && v <= 10000; p++)
		v = v * 10 + (*p - '0');
	v *= 100;
	if (*p == '.' && p > text)
		for (p++, k = 10; *p >= '0' && *p <= '9' && k > 0; p++, k /= 10)
			v += (*p - '0') * k;
	if (p == text || *p != '\0' || v > 1000000) {
		snprintf(err, errlen,
		    "a score from 0 to 10000, at most two decimals: %s", text);
		return -1;
	}
	*(long long *)var = v;
	return 0;
}

static const struct conf_key listconf_keys[] = {
    LSTR("owners", owners),
    LSTR("subject_prefix", subject_prefix),
    LSTR("reply_to", reply_to),
    {"max_message_size", CONF_SIZE, "0", 0, 1LL << 40, L(max_message_size),
	NULL},
    {"verp", CONF_BOOL, "no", 0, 1, L(verp), NULL},
    {"verp_rate", CONF_INT, "0", 0, 100, L(verp_rate), NULL},
    LSTR("archive", archive),
    LSTR("unsubscribe_url", unsubscribe_url),
    LSTR("pages_url", pages_url),
    LSTR("archive_url", archive_url),
    LSTR("archived_at_url", archived_at_url),
    {"archive_web", CONF_BOOL, "no", 0, 1, L(archive_web), NULL},
    {"archive_public", CONF_BOOL, "yes", 0, 1, L(archive_public), NULL},
    {"digest", CONF_BOOL, "no", 0, 1, L(digest), NULL},
    {"digest_size", CONF_SIZE, "40k", 1024, 1LL << 30, L(digest_size), NULL},
    {"digest_hour", CONF_INT, "0", 0, 23, L(digest_hour), NULL},
    {"subscribe_approval", CONF_BOOL, "no", 0, 1, L(subscribe_approval), NULL},
    {"who_access", CONF_STR, "owners", 0,
	sizeof(((struct listconf *)0)->who_access), L(who_access), NULL},
    /* bounce_max_count: the threshold's name from before scores */
    {"bounce_max_count", CONF_FUNC, "5", 0, 0, L(bounce_threshold),
	listconf_score},
    {"bounce_score_threshold", CONF_FUNC, "5.0", 0, 0, L(bounce_threshold),
	listconf_score},
    {"bounce_weight_recipient", CONF_FUNC, "1.0", 0, 0,
	L(bounce_weight_recipient), listconf_score},
    {"bounce_weight_mailbox", CONF_FUNC, "0.5", 0, 0, L(bounce_weight_mailbox),
	listconf_score},
    {"bounce_max_age", CONF_DURATION, "14d", 60, 365 * 86400LL,
	L(bounce_max_age), NULL},
    {"bounce_incident_share", CONF_INT, "30", 1, 100, L(bounce_incident_share),
	NULL},
    {"bounce_incident_min", CONF_INT, "10", 1, 1000000, L(bounce_incident_min),
	NULL},
    {"bounce_judge", CONF_BOOL, "yes", 0, 1, L(bounce_judge), NULL},
    {"complaint_unsubscribe", CONF_BOOL, "yes", 0, 1, L(complaint_unsubscribe),
	NULL},
    {"bounce_probes", CONF_INT, "3", 0, 100, L(bounce_probes), NULL},
    {"bounce_probe_interval", CONF_DURATION, "7d", 60, 365 * 86400LL,
	L(bounce_probe_interval), NULL},
    {"dmarc_mitigation", CONF_FUNC, "munge_if_strict", 0, 0,
	L(dmarc_mitigation), dmarc_mitigation_parse},
    {"posting", CONF_FUNC, "subscribers", 0, 0, L(posting),
	posting_conf_policy},
    {"nonmember_action", CONF_FUNC, "hold", 0, 0, L(nonmember_action),
	posting_conf_action},
    LSTR("moderators", moderators),
    LSTR("accept_from", accept_from),
    {"moderation_lifetime", CONF_DURATION, "7d", 1, 365 * 86400LL,
	L(moderation_lifetime), NULL},
    {"content_filter", CONF_BOOL, "no", 0, 1, L(content_filter), NULL},
    LSTR("filter_types", filter_types),
    LSTR("pass_types", pass_types),
    {"filter_action", CONF_FUNC, "remove", 0, 0, L(filter_action),
	content_filter_action_parse},
    {"convert_html", CONF_BOOL, "no", 0, 1, L(convert_html), NULL},
    {"collapse_alternatives", CONF_BOOL, "no", 0, 1, L(collapse_alternatives),
	NULL},
    {"emergency", CONF_BOOL, "no", 0, 1, L(emergency), NULL},
    {"max_recipients", CONF_INT, "0", 0, 100000, L(max_recipients), NULL},
    {"remove_headers", CONF_FUNC, "", 0, 0, L(remove_headers),
	head_rules_parse},
};
#define NKEYS (sizeof(listconf_keys) / sizeof(listconf_keys[0]))

/* listconf_section - the one section of a list config */
static int
listconf_section(void *arg, const char *section, struct conf_section *out,
    char *err, size_t errlen)
{
	if (strcmp(section, "list") != 0) {
		snprintf(err, errlen, "unknown section (want [list])");
		return -1;
	}
	out->keys = listconf_keys;
	out->nkeys = NKEYS;
	out->base = arg;
	return 0;
}

/* listconf_presence - whether the list can be read now.  REMOVED when
 * its directory holds a file named "removed" (the operator's word that
 * the list is gone for good; why gets its first line, if any).  MISSING
 * when the lists directory, the list's directory or its subscribers
 * file (mjq-newlist always makes one) is absent or unreadable: a file
 * system not mounted yet, a restore or a move in progress, so what is
 * read now would be wrong; why says which.  Else PRESENT.  With list
 * NULL (mail to majordomo@domain), only the domain's directory is
 * looked for. */
enum listconf_presence
listconf_presence(const struct settings *s, const char *domain,
    const char *list, char *why, size_t whylen)
{
	char path[PATH_MAX], file[PATH_MAX], line[200];
	struct stat sb;
	FILE *fp;

	if (stat(s->lists_dir, &sb) == -1) {
		snprintf(why, whylen, "lists directory %s: %s", s->lists_dir,
		    strerror(errno));
		return LISTCONF_MISSING;
	}
	if (list == NULL) { /* mail to majordomo@domain: the domain's */
		if (list_path(path, sizeof(path), s, domain, NULL, NULL) ==
			-1 ||
		    stat(path, &sb) == -1) {
			snprintf(why, whylen, "domain directory %s: %s", path,
			    strerror(errno));
			return LISTCONF_MISSING;
		}
		return LISTCONF_PRESENT;
	}
	if (list_path(path, sizeof(path), s, domain, list, "") == -1 ||
	    list_path(file, sizeof(file), s, domain, list,
		LISTCONF_REMOVED_FILE) == -1) {
		snprintf(why, whylen, "list path too long");
		return LISTCONF_MISSING;
	}
	if (stat(path, &sb) == -1) {
		snprintf(why, whylen, "list directory %s: %s", path,
		    strerror(errno));
		return LISTCONF_MISSING;
	}
	if ((fp = fopen(file, "re")) != NULL) {
		line[0] = '\0';
		if (fgets(line, sizeof(line), fp) == NULL)
			line[0] = '\0';
		fclose(fp);
		line[strcspn(line, "\r\n")] = '\0';
		snprintf(why, whylen, "%s", line[0] ? line : "no reason given");
		return LISTCONF_REMOVED;
	}
	if (list_path(path, sizeof(path), s, domain, list, "subscribers") ==
		-1 ||
	    stat(path, &sb) == -1) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return LISTCONF_MISSING;
	}
	return LISTCONF_PRESENT;
}

/* listconf_load - defaults, then the list's config file if it exists */
int
listconf_load(const struct settings *s, const char *domain, const char *list,
    struct listconf *lc, char *err, size_t errlen)
{
	char path[PATH_MAX];

	memset(lc, 0, sizeof(*lc));
	conf_defaults(listconf_keys, NKEYS, lc);
	if (list_path(path, sizeof(path), s, domain, list, "config") == -1) {
		snprintf(err, errlen, "list path too long");
		return -1;
	}
	return conf_load(path, 1, listconf_section, lc, err, errlen);
}

/* listconf_push - append a copy of an address */
static int
listconf_push(char ***v, size_t *n, size_t *cap, const char *addr)
{
	char **nv;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((nv = reallocarray(*v, *cap, sizeof(**v))) == NULL)
			return -1;
		*v = nv;
	}
	if (((*v)[*n] = strdup(addr)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

/* listconf_clean - the address on a subscribers line (and its mode
 * word), without its comment (subs_line.c) and blanks ("" for none) */
static char *
listconf_clean(char *line)
{
	char *p, *e;

	line[subs_line_len(line, strlen(line))] = '\0';
	for (p = line; isspace((unsigned char)*p); p++)
		;
	for (e = p + strlen(p); e > p && isspace((unsigned char)e[-1]);)
		*--e = '\0';
	return p;
}

/* listconf_same - addr_set's callback: the address kept at off of the
 * open subscribers file (where listconf_clean found it) is addr */
static int
listconf_same(void *arg, off_t off, const char *addr)
{
	char buf[NAME_ADDR_MAX + 2];
	ssize_t n;

	if ((n = pread(fileno((FILE *)arg), buf, sizeof(buf) - 1, off)) <= 0)
		return 0;
	buf[n] = '\0';
	/* An address has no blanks: it ends at a blank or the end of its
	 * line, as listconf_clean cut it. */
	buf[strcspn(buf, " \t\r\n\v\f")] = '\0';
	return strcasecmp(buf, addr) == 0;
}

/* A non-empty line of the subscribers file, as listconf_subscribers_scan
 * hands it over: its address cleaned (listconf_clean), not yet checked,
 * and its mode (an unknown word is each, with a warning). */
struct listconf_line {
	FILE *fp;
	const char *path;
	size_t lineno;
	off_t off; /* of the address in the file */
	const char *addr;
	enum subs_mode mode;
};

/* listconf_mode - cut the mode word off the cleaned line p (the address
 * ends at its first blank) into l->mode */
static void
listconf_mode(char *p, struct listconf_line *l)
{
	char *w = p + strcspn(p, " \t\r\v\f");
	int mode;

	l->mode = SUBS_EACH;
	if (*w == '\0')
		return;
	*w++ = '\0';
	w += strspn(w, " \t\r\v\f");
	if ((mode = subs_mode_parse(w, strlen(w))) == -1)
		log_warnx("%s:%zu: unknown mode \"%.32s\": each", l->path,
		    l->lineno, w);
	else
		l->mode = (enum subs_mode)mode;
}

/* listconf_subscribers_scan - fn(arg, line) for each non-empty line of
 * the list's subscribers file, in order, with only that line in core;
 * fn returns 0 to go on, 1 to stop, -1 (errno set) on an error.  A
 * missing file is an empty list.  0, or -1 with err */
static int
listconf_subscribers_scan(const struct settings *s, const char *domain,
    const char *list, int (*fn)(void *arg, const struct listconf_line *l),
    void *arg, char *err, size_t errlen)
{
	char path[PATH_MAX], *line = NULL, *p;
	struct listconf_line l = {NULL, path, 0, 0, NULL, SUBS_EACH};
	size_t lcap = 0;
	off_t off = 0;
	ssize_t len;
	int r = -1, k = 0;

	if (list_path(path, sizeof(path), s, domain, list, "subscribers") ==
	    -1) {
		snprintf(err, errlen, "list path too long");
		return -1;
	}
	if ((l.fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(
		    err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	for (; k == 0 && (len = getline(&line, &lcap, l.fp)) != -1;
	     off += len) {
		l.lineno++;
		if (*(p = listconf_clean(line)) == '\0')
			continue;
		l.off = off + (p - line);
		l.addr = p;
		listconf_mode(p, &l);
		if ((k = fn(arg, &l)) == -1) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto done;
		}
	}
	if (ferror(l.fp)) {
		snprintf(
		    err, errlen, "cannot read %s: %s", path, strerror(errno));
		goto done;
	}
	r = 0;
done:
	free(line);
	fclose(l.fp);
	return r;
}

/* The caller of listconf_subscribers_each (fn) or _each_mode (fnm), and
 * the repeats seen. */
struct listconf_each {
	int (*fn)(void *arg, const char *addr);
	int (*fnm)(void *arg, const char *addr, enum subs_mode mode);
	void *arg;
	struct addr_set seen;
};

/* listconf_each_line - listconf_subscribers_scan's callback for
 * listconf_subscribers_each: a valid address not seen before goes to the
 * caller's fn */
static int
listconf_each_line(void *arg, const struct listconf_line *l)
{
	struct listconf_each *e = arg;
	int k;

	if (!name_addr_ok(l->addr)) {
		log_warnx(
		    "%s:%zu: invalid address skipped", l->path, l->lineno);
		return 0;
	}
	if ((k = addr_set_seen(
		 &e->seen, l->addr, l->off, listconf_same, l->fp)) == -1)
		return -1;
	if (k == 1) {
		log_warnx("%s: duplicate address %s skipped", l->path, l->addr);
		return 0;
	}
	if (e->fnm != NULL)
		return e->fnm(e->arg, l->addr, l->mode) == -1 ? -1 : 0;
	return e->fn(e->arg, l->addr) == -1 ? -1 : 0;
}

/* listconf_subscribers_each - fn(arg, address) for each of the list's
 * subscribers in the file's order, each once: invalid addresses and
 * repeats are skipped with a warning.  Only one line is in core at a
 * time, and 8 to 16 bytes per subscriber to know repeats (addr_set.c).
 * A missing file is an empty list; fn's -1 stops the reading. */
int
listconf_subscribers_each(const struct settings *s, const char *domain,
    const char *list, int (*fn)(void *arg, const char *addr), void *arg,
    char *err, size_t errlen)
{
	struct listconf_each e = {fn, NULL, arg, {NULL, 0, 0}};
	int r;

	r = listconf_subscribers_scan(
	    s, domain, list, listconf_each_line, &e, err, errlen);
	addr_set_free(&e.seen);
	return r;
}

/* listconf_subscribers_each_mode - as listconf_subscribers_each, with
 * each subscriber's mode */
int
listconf_subscribers_each_mode(const struct settings *s, const char *domain,
    const char *list,
    int (*fn)(void *arg, const char *addr, enum subs_mode mode), void *arg,
    char *err, size_t errlen)
{
	struct listconf_each e = {NULL, fn, arg, {NULL, 0, 0}};
	int r;

	r = listconf_subscribers_scan(
	    s, domain, list, listconf_each_line, &e, err, errlen);
	addr_set_free(&e.seen);
	return r;
}

/* The addresses listconf_subscribers_find looks for. */
struct listconf_find {
	const char *const *addr;
	int *found;
	size_t n, left;
};

/* listconf_find_line - listconf_subscribers_scan's callback for
 * listconf_subscribers_find: the line names one of the addresses (as
 * listconf_subscribers_each would give it: valid, any case); 1 stops
 * the scan when all are found */
static int
listconf_find_line(void *arg, const struct listconf_line *l)
{
	struct listconf_find *f = arg;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!f->found[i] && strcasecmp(l->addr, f->addr[i]) == 0 &&
		    name_addr_ok(l->addr)) {
			f->found[i] = 1;
			f->left--;
		}
	return f->left == 0;
}

/* listconf_subscribers_find - found[i] = 1 when addr[i] is one of the
 * list's subscribers (as listconf_subscribers_each reads them), else 0:
 * one pass over the file for all n addresses, ended when all are found,
 * with one line in core and nothing kept per subscriber (repeats do not
 * matter here).  A missing file is an empty list.  0, or -1 with err */
int
listconf_subscribers_find(const struct settings *s, const char *domain,
    const char *list, const char *const *addr, int *found, size_t n, char *err,
    size_t errlen)
{
	struct listconf_find f = {addr, found, n, n};
	size_t i;

	for (i = 0; i < n; i++)
		found[i] = 0;
	if (n == 0)
		return 0;
	return listconf_subscribers_scan(
	    s, domain, list, listconf_find_line, &f, err, errlen);
}

/* listconf_split - addresses separated by commas or spaces */
int
listconf_split(const char *text, char ***out, size_t *n)
{
	char *copy, *tok, *save = NULL;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if ((copy = strdup(text)) == NULL)
		return -1;
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (!name_addr_ok(tok)) {
			log_warnx(
			    "invalid owner address \"%.64s\" skipped", tok);
			continue;
		}
		if (listconf_push(out, n, &cap, tok) == -1) {
			free(copy);
			listconf_free_vec(*out, *n);
			return -1;
		}
	}
	free(copy);
	return 0;
}

/* listconf_free_vec - free a vector of addresses */
void
listconf_free_vec(char **v, size_t n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

/* listconf_in - addr is one of the addresses in text (commas or blanks,
 * as listconf_split reads them), case aside; 0 when text cannot be read */
int
listconf_in(const char *text, const char *addr)
{
	char **v;
	size_t n, i;
	int r = 0;

	if (listconf_split(text, &v, &n) == -1)
		return 0;
	for (i = 0; i < n && !r; i++)
		r = strcasecmp(v[i], addr) == 0;
	listconf_free_vec(v, n);
	return r;
}
