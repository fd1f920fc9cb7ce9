/*
 * subs_mode_word.c - the words of the subscriber modes (subs_mode.h), as
 * a subscribers line and the set command write them.  Pure code, below
 * both the subscribers reader (listconf.c) and its editor (subs_mode.c).
 */
#include <string.h>
#include <strings.h>

#include "subs_mode.h"

static const char *const subs_mode_words[SUBS_NMODES] = {
    [SUBS_EACH] = "each",
    [SUBS_DIGEST] = "digest",
    [SUBS_DIGEST_PLAIN] = "digest-plain",
    [SUBS_NOMAIL] = "nomail",
    [SUBS_NOTMETOO] = "notmetoo",
};

/* subs_mode_parse - the mode named by the len bytes at word (any case) */
int
subs_mode_parse(const char *word, size_t len)
{
	int i;

	for (i = 0; i < SUBS_NMODES; i++)
		if (strlen(subs_mode_words[i]) == len &&
		    strncasecmp(word, subs_mode_words[i], len) == 0)
			return i;
	return -1;
}

/* subs_mode_name - the word of mode */
const char *
subs_mode_name(enum subs_mode mode)
{
	return mode < SUBS_NMODES ? subs_mode_words[mode] : "each";
}
