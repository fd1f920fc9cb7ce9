/*
 * bans.h - who may neither subscribe nor post (bans.c): the list's
 * "bans" file and the server's [lists] bans_file, read once per use.
 */
#ifndef MJQ_BANS_H
#define MJQ_BANS_H

#include <regex.h>
#include <stddef.h>

#include "names.h"
#include "settings.h"

#define BANS_FILE "bans"      /* in the list's directory */
#define BANS_MAX 10000	      /* patterns read from one file, at most */
#define BANS_PATTERN_MAX 1024 /* bytes of one pattern */

enum ban_kind { BAN_ADDR, BAN_DOMAIN, BAN_REGEX };

struct ban {
	enum ban_kind kind;
	char pat[BANS_PATTERN_MAX];
	size_t line; /* in its file */
	regex_t re;  /* BAN_REGEX only */
};

struct bans {
	struct ban *v;
	size_t n;
};

/* bans_load - the server's and the list's patterns; a bad one is
 * logged with its file and line and left out.  0, or -1 with errno
 * when a file exists and cannot be read */
int bans_load(const struct settings *s, const char *domain, const char *list,
    struct bans *b);
/* bans_match - the pattern that bans addr, or NULL */
const char *bans_match(const struct bans *b, const char *addr);
/* bans_check - bans_load, bans_match, bans_free: 1 banned (the pattern
 * in why), 0 not, -1 error */
int bans_check(const struct settings *s, const char *domain, const char *list,
    const char *addr, char *why, size_t whylen);
void bans_free(struct bans *b);

#endif
