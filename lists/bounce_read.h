/*
 * bounce_read.h - the readers of report formats, one file each, each
 * adding the failed addresses it finds to a bounce_found
 * (bounce_found.h) and returning how many it found:
 *   bounce_read_dsn.c     RFC 3464 delivery-status fields
 *   bounce_read_json.c    providers' JSON notifications (Amazon SES)
 *   bounce_read_header.c  X-Failed-Recipients and its kin
 *   bounce_read_prose.c   the notifications written for humans, by the
 *                         family tables bounce_fam_*.c (bounce_family.h)
 */
#ifndef MJQ_BOUNCE_READ_H
#define MJQ_BOUNCE_READ_H

#include <stddef.h>

#include "bounce_found.h"

/* bounce_read_dsn - the failed recipients of delivery-status fields in
 * (p, len); those only delayed go to late (NULL: nowhere) */
size_t bounce_read_dsn(const char *p, size_t len, struct bounce_found *bf,
    struct bounce_found *late);

/* bounce_read_json - the failed recipients of a JSON notification in
 * the report text (p, len) */
size_t bounce_read_json(const char *p, size_t len, struct bounce_found *bf);

/* bounce_read_header - the addresses of the message's (msg, mlen)
 * failed-recipient header fields, each judged by what the report text
 * (p, len) says after its first mention of it */
size_t bounce_read_header(const char *msg, size_t mlen, const char *p,
    size_t len, struct bounce_found *bf);

/* bounce_read_prose - the failed addresses of a notification text (p,
 * len, NUL-terminated at len) in the first family's form that finds any; the
 * message's header (msg, mlen) helps tell the family */
size_t bounce_read_prose(const char *msg, size_t mlen, const char *p,
    size_t len, struct bounce_found *bf);

/* bounce_read_reason - the text (p, len) from the first mention of addr
 * on, at most max bytes: what a report says of it; *rlen its length
 * (0, and p, when addr is not mentioned) */
const char *bounce_read_reason(
    const char *p, size_t len, const char *addr, size_t max, size_t *rlen);

#endif
