/*
 * archive_url.h - the archive's links of a post (archive_url.c):
 * List-Archive (RFC 2369) and Archived-At (RFC 5064) from the list's
 * URL templates.
 */
#ifndef MJQ_ARCHIVE_URL_H
#define MJQ_ARCHIVE_URL_H

#include <stddef.h>
#include <stdio.h>

/* An archive name: a plain Message-ID up to this long, or "_" and 16
 * hex digits (archive_url_name) */
#define ARCHIVE_NAME_PLAIN_MAX 200
#define ARCHIVE_NAME_MAX ARCHIVE_NAME_PLAIN_MAX
/* The Message-ID value a name is made of: its first this many bytes
 * (the list's Archived-At and mj_archive read it into buffers of this
 * size, so both make the same name of a longer one) */
#define ARCHIVE_URL_MSGID_MAX 2048

/* archive_url_fields - write "List-Archive: <url>" and "Archived-At:
 * <url>" for the templates that are set (""), $LIST, $DOMAIN and (for
 * Archived-At, only when the post has a Message-ID) $MSGID replaced;
 * msgid is the Message-ID's value, or NULL */
void archive_url_fields(FILE *fp, const char *archive, const char *archived_at,
    const char *list, const char *domain, const char *msgid);

/* archive_url_put - the template t into fp, $LIST, $DOMAIN and (msgid
 * not NULL) $MSGID replaced, blanks and angle brackets dropped */
void archive_url_put(FILE *fp, const char *t, const char *list,
    const char *domain, const char *msgid);
/* archive_url_name - the post's name in the archive and in $MSGID: its
 * Message-ID when that is a plain name (letters, digits, -._~@+=$!,:
 * from a letter or digit on, no "..", at most ARCHIVE_NAME_PLAIN_MAX),
 * else "_" and its hash; "" without one */
void archive_url_name(const char *msgid, char *out, size_t outlen);

#endif
