/*
 * dkim_conf.c - how a domain's mail is signed: [dkim] of mjq.conf, then
 * the domain's own <DKIM directory>/config (section [dkim], the same keys
 * but key_dir), read each time a message of the domain is prepared.
 *
 * The DKIM directory is <lists dir>/<domain>/.dkim, or <key_dir>/<domain>
 * when [dkim] key_dir is set; it holds <selector>.key (PEM private keys,
 * mode 0600, made by mjq-dkimkey).  The leading dot keeps it from ever
 * being taken for a list: list names cannot start with a dot.
 */
#include <sys/stat.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dkim_conf.h"
#include "list_path.h"
#include "io.h"

#define D(f) offsetof(struct dkim_conf, f)

/* The keys a domain may set for itself; defaults come from [dkim]. */
static const struct conf_key dkim_conf_keys[] = {
    {"sign", CONF_BOOL, NULL, 0, 1, D(sign), NULL},
    {"selectors", CONF_STR, NULL, 0, sizeof(((struct dkim_conf *)0)->selectors),
	D(selectors), NULL},
    {"ed25519_selector", CONF_STR, NULL, 0,
	sizeof(((struct dkim_conf *)0)->ed25519_selector), D(ed25519_selector),
	NULL},
};

/* dkim_conf_section - the one section of a domain's DKIM config */
static int
dkim_conf_section(void *arg, const char *section, struct conf_section *out,
    char *err, size_t errlen)
{
	if (strcmp(section, "dkim") != 0) {
		snprintf(err, errlen, "unknown section (want [dkim])");
		return -1;
	}
	out->keys = dkim_conf_keys;
	out->nkeys = sizeof(dkim_conf_keys) / sizeof(dkim_conf_keys[0]);
	out->base = arg;
	return 0;
}

/* dkim_conf_dir - the DKIM directory of domain */
static int
dkim_conf_dir(char *buf, size_t len, const struct settings *s,
    const struct lists_settings *ls, const char *domain)
{
	int r;

	if (ls->dkim_key_dir[0] == '\0')
		return list_path(buf, len, s, domain, NULL, ".dkim");
	r = snprintf(buf, len, "%s/%s", ls->dkim_key_dir, domain);
	return r < 0 || (size_t)r >= len ? -1 : 0;
}

/* dkim_conf_selector_ok - a selector is one DNS label */
static int
dkim_conf_selector_ok(const char *sel)
{
	size_t n = strlen(sel), i;

	if (n == 0 || n > DKIM_SELECTOR_MAX || sel[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)sel[i]) && sel[i] != '-' &&
		    sel[i] != '_')
			return 0;
	return 1;
}

/* dkim_conf_split - selectors (separated by commas or blanks) into rsa */
static int
dkim_conf_split(struct dkim_conf *dc, char *err, size_t errlen)
{
	char copy[sizeof(dc->selectors)], *p, *tok;

	(void)strlcpy(copy, dc->selectors, sizeof(copy)); /* same size */
	dc->nrsa = 0;
	for (p = copy; (tok = strsep(&p, ", \t")) != NULL;) {
		if (*tok == '\0')
			continue;
		if (!dkim_conf_selector_ok(tok)) {
			snprintf(err, errlen,
			    "bad DKIM selector \"%s\" (letters, digits, - "
			    "and _)",
			    tok);
			return -1;
		}
		if (dc->nrsa == DKIM_RSA_SELECTORS_MAX) {
			snprintf(err, errlen,
			    "more than %d DKIM selectors in \"%s\"",
			    DKIM_RSA_SELECTORS_MAX, dc->selectors);
			return -1;
		}
		/* fits: dkim_conf_selector_ok bounds it */
		(void)strlcpy(dc->rsa[dc->nrsa++], tok, sizeof(dc->rsa[0]));
	}
	if (dc->ed25519_selector[0] != '\0' &&
	    !dkim_conf_selector_ok(dc->ed25519_selector)) {
		snprintf(err, errlen, "bad DKIM ed25519_selector \"%s\"",
		    dc->ed25519_selector);
		return -1;
	}
	if (dc->sign && dc->nrsa == 0 && dc->ed25519_selector[0] == '\0') {
		snprintf(
		    err, errlen, "DKIM signing is on but no selector is set");
		return -1;
	}
	return 0;
}

/* dkim_conf_load - [dkim] of mjq.conf, then the domain's config file if
 * it exists */
int
dkim_conf_load(const struct settings *s, const struct lists_settings *ls,
    const char *domain, struct dkim_conf *dc, char *err, size_t errlen)
{
	char path[PATH_MAX];

	memset(dc, 0, sizeof(*dc));
	dc->sign = ls->dkim_sign;
	if (strlcpy(dc->selectors, ls->dkim_selectors, sizeof(dc->selectors)) >=
		sizeof(dc->selectors) ||
	    strlcpy(dc->ed25519_selector, ls->dkim_ed25519_selector,
		sizeof(dc->ed25519_selector)) >= sizeof(dc->ed25519_selector)) {
		snprintf(err, errlen, "DKIM selector too long");
		return -1;
	}
	if (dkim_conf_dir(dc->dir, sizeof(dc->dir), s, ls, domain) == -1 ||
	    snprintf(path, sizeof(path), "%s/config", dc->dir) >=
		(int)sizeof(path)) {
		snprintf(err, errlen, "DKIM directory path too long");
		return -1;
	}
	if (conf_load(path, 1, dkim_conf_section, dc, err, errlen) == -1)
		return -1;
	return dkim_conf_split(dc, err, errlen);
}

/* dkim_conf_key_path - <DKIM directory>/<selector>.key */
static int
dkim_conf_key_path(
    char *buf, size_t len, const struct dkim_conf *dc, const char *selector)
{
	int r = snprintf(buf, len, "%s/%s.key", dc->dir, selector);

	return r < 0 || (size_t)r >= len ? -1 : 0;
}

/* dkim_conf_key_open - the key file of selector, open for reading, with
 * its path and status; -1 with err unless it is a regular file only the
 * mjq user can read, of a plausible size */
int
dkim_conf_key_open(const struct dkim_conf *dc, const char *selector, char *path,
    size_t pathlen, struct stat *sb, char *err, size_t errlen)
{
	int fd;

	if (dkim_conf_key_path(path, pathlen, dc, selector) == -1) {
		snprintf(err, errlen, "DKIM key path too long");
		return -1;
	}
	if ((fd = io_open_private(path, DKIM_CONF_KEY_MAX, sb)) == -1)
		snprintf(err, errlen, "cannot read DKIM key %s: %s", path,
		    strerror(errno));
	else if (fd == -2)
		snprintf(err, errlen,
		    "DKIM key %s must be a regular file of mode 0600 (or "
		    "0400) and under %d bytes",
		    path, DKIM_CONF_KEY_MAX);
	return fd < 0 ? -1 : fd;
}

/* dkim_conf_check - every key the domain signs with can be opened (for
 * mj_queueserv status: the key itself is parsed by the runner only) */
int
dkim_conf_check(const struct dkim_conf *dc, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat sb;
	int i, fd;

	for (i = 0; dc->sign && i <= dc->nrsa; i++) {
		const char *sel =
		    i < dc->nrsa ? dc->rsa[i] : dc->ed25519_selector;
		if (sel[0] == '\0')
			continue;
		if ((fd = dkim_conf_key_open(
			 dc, sel, path, sizeof(path), &sb, err, errlen)) == -1)
			return -1;
		close(fd);
	}
	return 0;
}
