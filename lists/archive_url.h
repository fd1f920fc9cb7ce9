/*
 * archive_url.h - the archive's links of a post (archive_url.c):
 * List-Archive (RFC 2369) and Archived-At (RFC 5064) from the list's
 * URL templates.
 */
#ifndef MJQ_ARCHIVE_URL_H
#define MJQ_ARCHIVE_URL_H

#include <stdio.h>

/* archive_url_fields - write "List-Archive: <url>" and "Archived-At:
 * <url>" for the templates that are set (""), $LIST, $DOMAIN and (for
 * Archived-At, only when the post has a Message-ID) $MSGID replaced;
 * msgid is the Message-ID's value, or NULL */
void archive_url_fields(FILE *fp, const char *archive, const char *archived_at,
    const char *list, const char *domain, const char *msgid);

#endif
