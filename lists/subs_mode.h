/*
 * subs_mode.h - how each subscriber gets a list (subs_mode.c): every
 * post, every post but one's own, a digest (MIME or RFC 1153 plain
 * text) or nothing for a while.
 */
#ifndef MJQ_SUBS_MODE_H
#define MJQ_SUBS_MODE_H

#include <stddef.h>
#include <stdio.h>

#include "names.h"
#include "settings.h"

/* The word after an address on its subscribers line; none is each. */
enum subs_mode {
	SUBS_EACH,	   /* every post (the default) */
	SUBS_DIGEST,	   /* a MIME digest (multipart/digest) */
	SUBS_DIGEST_PLAIN, /* an RFC 1153 plain-text digest */
	SUBS_NOMAIL,	   /* nothing; still subscribed */
	SUBS_NOTMETOO,	   /* every post but one's own (Mailman's not_metoo) */
	SUBS_NMODES
};

struct subs_mode_ent {
	char addr[NAME_ADDR_MAX + 1];
	enum subs_mode mode;
};

/* subs_mode_parse - the mode a word names, or -1 */
int subs_mode_parse(const char *word, size_t len);
/* subs_mode_name - the word of a mode */
const char *subs_mode_name(enum subs_mode mode);
/* subs_mode_line - a subscribers line written again with mode */
void subs_mode_line(FILE *fp, const char *line, size_t len, size_t start,
    size_t alen, enum subs_mode mode);
/* subs_mode_set - addr's line given mode, under the subscribers lock:
 * 1 changed, 0 already so, 2 addr is not subscribed, -1 error */
int subs_mode_set(const struct settings *s, const char *domain,
    const char *list, const char *addr, enum subs_mode mode);
/* subs_mode_list - every subscriber with its mode, sorted by address
 * (*v malloc'd); 0, or -1 with err */
int subs_mode_list(const struct settings *s, const char *domain,
    const char *list, struct subs_mode_ent **v, size_t *n, char *err,
    size_t errlen);

#endif
