/*
 * moderate.h - a post the list's posting policy refuses, at its first
 * processing (moderate.c): held with a notice to the moderators,
 * rejected or discarded; and the notes to a post's poster.
 */
#ifndef MJQ_MODERATE_H
#define MJQ_MODERATE_H

#include <stddef.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* The .why of a post held for moderation starts with this. */
#define MODERATE_WHY "moderation: "
/* Lines of a held post's body shown in the notice, and their width. */
#define MODERATE_EXCERPT_LINES 20
#define MODERATE_EXCERPT_WIDTH 200

/* moderate_post - the posting policy for a post at its first
 * processing: 0 post it, -2 held (moved to HOLD/), 1 rejected or
 * discarded (an empty state file made), -1 try again later */
int moderate_post(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len);
/* moderate_poster - a post's From and envelope sender ("" for none) */
void moderate_poster(
    const char *text, size_t len, char *from, char *sender, size_t addrlen);
/* moderate_tell - a note to the poster about the post text, committed */
int moderate_tell(struct listfn_env *env, struct listfn_msg *m, const char *to,
    const char *text, size_t len, const char *what);

#endif
