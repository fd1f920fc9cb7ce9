/*
 * archive_url.c - the archive's links of a post, from the list's URL
 * templates (list keys archive_url, archived_at_url):
 *
 *     archive_url = https://lists.example.org/$LIST/
 *     archived_at_url = https://lists.example.org/$LIST/msg/$MSGID
 *
 * $LIST and $DOMAIN are the list's; $MSGID is the post's Message-ID
 * without its angle brackets, every byte but RFC 3986's unreserved ones
 * and '@' percent-encoded, so a hostile Message-ID cannot leave the URL
 * or the header field.  The fields are part of the text every copy
 * shares, so the DKIM signature covers them (dkim_copy.c signs both).
 */
#include <ctype.h>
#include <string.h>

#include "archive_url.h"

/* archive_url_msgid - the Message-ID's id, percent-encoded */
static void
archive_url_msgid(FILE *fp, const char *msgid)
{
	const char *p = msgid, *e;

	while (*p == ' ' || *p == '\t' || *p == '<')
		p++;
	if ((e = strchr(p, '>')) == NULL)
		e = p + strlen(p);
	for (; p < e; p++)
		if (isalnum((unsigned char)*p) || strchr("-._~@", *p) != NULL)
			fputc(*p, fp);
		else
			fprintf(fp, "%%%02X", (unsigned char)*p);
}

/* archive_url_put - one template, its variables replaced */
static void
archive_url_put(FILE *fp, const char *t, const char *list, const char *domain,
    const char *msgid)
{
	for (; *t != '\0'; t++) {
		if (strncmp(t, "$LIST", 5) == 0) {
			fputs(list, fp);
			t += 4;
		} else if (strncmp(t, "$DOMAIN", 7) == 0) {
			fputs(domain, fp);
			t += 6;
		} else if (strncmp(t, "$MSGID", 6) == 0 && msgid != NULL) {
			archive_url_msgid(fp, msgid);
			t += 5;
		} else if ((unsigned char)*t > ' ' && *t != '<' && *t != '>')
			fputc(*t, fp);
	}
}

/* archive_url_fields - List-Archive and Archived-At, when set */
void
archive_url_fields(FILE *fp, const char *archive, const char *archived_at,
    const char *list, const char *domain, const char *msgid)
{
	if (archive[0] != '\0') {
		fputs("List-Archive: <", fp);
		archive_url_put(fp, archive, list, domain, NULL);
		fputs(">\n", fp);
	}
	if (archived_at[0] != '\0' && msgid != NULL && msgid[0] != '\0') {
		fputs("Archived-At: <", fp);
		archive_url_put(fp, archived_at, list, domain, msgid);
		fputs(">\n", fp);
	}
}
