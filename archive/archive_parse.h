/*
 * archive_parse.h - what the archive reads from a post's header
 * (archive_parse.c): its identity, author, subject, date, references.
 */
#ifndef MJQ_ARCHIVE_PARSE_H
#define MJQ_ARCHIVE_PARSE_H

#include <stddef.h>
#include <time.h>

#include "lists.h"

#define ARCHIVE_MSGID_MAX 1024 /* longer ids are cut (then hashed) */
#define ARCHIVE_REFS_MAX 64    /* the last references kept */

struct archive_post {
	char msgid[ARCHIVE_MSGID_MAX + 1]; /* no angle brackets */
	char name[ARCHIVE_NAME_MAX + 1];   /* archive_url_name(msgid) */
	char subject[1024];		   /* decoded, UTF-8 */
	char skey[1024];		   /* without Re:, tags; lower case */
	int reply;			   /* the subject says Re: */
	char from_name[256], from_addr[320];
	time_t date;
	char month[8];		      /* YYYY-MM, UTC */
	char *refs[ARCHIVE_REFS_MAX]; /* malloc'd, oldest first */
	size_t nrefs;
};

/* archive_parse - the header of text (len bytes) into p; made_id: the
 * Message-ID to use when it has none; now: arrival, the date when it
 * has none worth believing; 0 or -1 (no memory) */
int archive_parse(const char *text, size_t len, const char *made_id, time_t now,
    struct archive_post *p);
void archive_parse_free(struct archive_post *p);

#endif
