/*
 * digest_text.h - the text of a digest issue (digest_text.c): a MIME
 * multipart/digest or an RFC 1153 plain-text digest.
 */
#ifndef MJQ_DIGEST_TEXT_H
#define MJQ_DIGEST_TEXT_H

#include <stddef.h>
#include <time.h>

#include "lists.h"

/* One post of an issue: its text as the list received it. */
struct digest_post {
	char *text;
	size_t len;
};

/* What an issue is. */
struct digest_issue {
	const char *list, *domain;
	const struct listconf *lc;
	long long volume, issue;
	time_t now;
	const struct digest_post *posts;
	size_t nposts;
	const char *foot; /* the list's footer text, once an issue, or NULL */
};

/* digest_text - the issue's text for its readers of mode (SUBS_DIGEST:
 * MIME, SUBS_DIGEST_PLAIN: RFC 1153), *out malloc'd; 0 or -1 */
int digest_text(const struct digest_issue *di, enum subs_mode mode, char **out,
    size_t *outlen);

#endif
