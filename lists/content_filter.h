/*
 * content_filter.h - a list's content filter (content_filter.c):
 * refused MIME types, HTML-only posts made plain text, alternatives
 * collapsed.
 */
#ifndef MJQ_CONTENT_FILTER_H
#define MJQ_CONTENT_FILTER_H

#include <stddef.h>

#include "listconf.h"

/* What is done with a post that has a refused part. */
enum content_filter_action {
	CONTENT_REMOVE, /* the part removed, a note in its place */
	CONTENT_HOLD,	/* the post held for a moderator */
	CONTENT_REJECT	/* the post returned to its poster */
};

int content_filter_action_parse(
    const char *text, void *var, char *err, size_t errlen);
int content_filter_judge(const struct listconf *lc, const char *text,
    size_t len, char *why, size_t whylen);
int content_filter_apply(const struct listconf *lc, const char *text,
    size_t len, char **out, size_t *outlen);

#endif
