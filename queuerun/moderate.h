/*
 * moderate.h - the moderation queue (moderate.c: holding a post and the
 * notice to the moderators; moderate_cmd.c: approve, reject, discard;
 * moderate_expire.c: held posts past moderation_lifetime).
 */
#ifndef MJQ_MODERATE_H
#define MJQ_MODERATE_H

#include <stddef.h>
#include <time.h>

#include "cmd_parse.h"
#include "listconf.h"
#include "queuerun_impl.h"

struct request;

/* The .why of a post held for moderation starts with this. */
#define MODERATE_WHY "moderation: "
/* Lines of a held post's body shown in the notice, and their width. */
#define MODERATE_EXCERPT_LINES 20
#define MODERATE_EXCERPT_WIDTH 200
/* Held posts expired in one sweep, and sweeps' spacing per runner. */
#define MODERATE_EXPIRE_MAX 100
#define MODERATE_EXPIRE_EVERY 60

/* moderate.c */
int moderate_post(struct queuerun *q, struct qr_msg *m,
    const struct listconf *lc, const char *text, size_t len);
void moderate_poster(
    const char *text, size_t len, char *from, char *sender, size_t addrlen);
int moderate_tell(struct queuerun *q, struct qr_msg *m, const char *to,
    const char *text, size_t len, const char *what);

/* moderate_cmd.c */
int moderate_cmd(struct request *r, const struct cmd *c);

/* moderate_expire.c */
void moderate_expire(struct queuerun *q, time_t now);

#endif
