/*
 * archive_url.c - the archive's links of a post, from the list's URL
 * templates (list keys archive_url, archived_at_url):
 *
 *     archive_url = https://lists.example.org/$LIST/
 *     archived_at_url = https://lists.example.org/$LIST/msg/$MSGID
 *
 * $LIST and $DOMAIN are the list's; $MSGID is the post's archive name
 * (archive_url_name: its Message-ID without angle brackets when that is
 * a plain name, else "_" and a hash of it), every byte but RFC 3986's
 * unreserved ones and '@' percent-encoded, so a hostile Message-ID
 * cannot leave the URL or the header field, and the file mj_archive
 * writes under that name is the one a web server finds for the URL
 * once it has decoded it (no '/', no leading dot: no path from a
 * Message-ID).  The fields are part of the text every copy shares, so
 * the DKIM signature covers them (dkim_copy.c signs both).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "archive_url.h"
#include "fnv.h"

/* archive_url_plain - the id can be a file name and a URL's last part
 * as it is */
static int
archive_url_plain(const char *p, size_t n)
{
	size_t i;

	if (n == 0 || n > ARCHIVE_NAME_PLAIN_MAX ||
	    !isalnum((unsigned char)p[0]) || memmem(p, n, "..", 2) != NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)p[i]) &&
		    strchr("-._~@+=$!,:", p[i]) == NULL)
			return 0;
	return 1;
}

/* archive_url_name - the archive name of a Message-ID value (angle
 * brackets and blanks around it are not part of it): the id itself when
 * plain, else "_" and the 64-bit FNV-1a of the id in hex; "" when there
 * is no id */
void
archive_url_name(const char *msgid, char *out, size_t outlen)
{
	const char *p = msgid, *e;
	size_t n;

	while (*p == ' ' || *p == '\t' || *p == '<')
		p++;
	if ((e = strchr(p, '>')) == NULL)
		for (e = p + strlen(p);
		     e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
				  e[-1] == '\n');)
			e--;
	n = (size_t)(e - p);
	if (n == 0)
		snprintf(out, outlen, "%s", "");
	else if (archive_url_plain(p, n) && n < outlen)
		snprintf(out, outlen, "%.*s", (int)n, p);
	else
		snprintf(out, outlen, "_%016" PRIx64, fnv1a(FNV1A_BASIS, p, n));
}

/* archive_url_msgid - the Message-ID's archive name, percent-encoded */
static void
archive_url_msgid(FILE *fp, const char *msgid)
{
	char name[ARCHIVE_NAME_MAX + 1];
	const char *p;

	archive_url_name(msgid, name, sizeof(name));
	for (p = name; *p != '\0'; p++)
		if (isalnum((unsigned char)*p) || strchr("-._~@", *p) != NULL)
			fputc(*p, fp);
		else
			fprintf(fp, "%%%02X", (unsigned char)*p);
}

/* archive_url_put - one template, its variables replaced */
void
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
