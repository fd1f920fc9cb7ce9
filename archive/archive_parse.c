/*
 * archive_parse.c - a post's header as the archive needs it.  Every
 * value is bounded by its buffer; encoded-words are decoded to UTF-8
 * (lists/cmd_mime_words.c); a date the post claims is believed only
 * between 1990 and a day after its arrival, so a forged one cannot make
 * a month of its own far away.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "archive_parse.h"

#define ARCHIVE_DATE_MIN 631152000LL /* 1990-01-01 */
#define ARCHIVE_DATE_AHEAD 86400     /* s a date may be in the future */

/* archive_parse_num - digits at *p into *v (at most max of them) */
static int
archive_parse_num(const char **p, int max, int *v)
{
	int k = 0;

	*v = 0;
	while (**p == ' ')
		(*p)++;
	while (k < max && isdigit((unsigned char)**p)) {
		*v = *v * 10 + (**p - '0');
		(*p)++;
		k++;
	}
	return k > 0 ? 0 : -1;
}

/* archive_parse_zone - a zone's offset east of UTC in seconds */
static long
archive_parse_zone(const char *p)
{
	int h, m;

	while (*p == ' ')
		p++;
	if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1]) &&
	    sscanf(p + 1, "%2d%2d", &h, &m) == 2 && h < 24 && m < 60)
		return (*p == '-' ? -1 : 1) * (h * 3600L + m * 60L);
	if (strncasecmp(p, "EST", 3) == 0 || strncasecmp(p, "CDT", 3) == 0)
		return -5 * 3600L;
	if (strncasecmp(p, "EDT", 3) == 0)
		return -4 * 3600L;
	if (strncasecmp(p, "CST", 3) == 0 || strncasecmp(p, "MDT", 3) == 0)
		return -6 * 3600L;
	if (strncasecmp(p, "MST", 3) == 0 || strncasecmp(p, "PDT", 3) == 0)
		return -7 * 3600L;
	if (strncasecmp(p, "PST", 3) == 0)
		return -8 * 3600L;
	return 0;
}

/* archive_parse_date - [Day,] DD Mon YYYY HH:MM[:SS] zone */
static int
archive_parse_date(const char *v, time_t *t)
{
	static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
	const char *p = v, *m;
	char mon[4];
	struct tm tm;
	int d, y, hh, mm, ss = 0;

	if ((m = strchr(p, ',')) != NULL && m - p < 12)
		p = m + 1;
	if (archive_parse_num(&p, 2, &d) == -1)
		return -1;
	while (*p == ' ')
		p++;
	if (strlen(p) < 3)
		return -1;
	mon[0] = (char)tolower((unsigned char)p[0]);
	mon[1] = (char)tolower((unsigned char)p[1]);
	mon[2] = (char)tolower((unsigned char)p[2]);
	mon[3] = '\0';
	if ((m = strstr(months, mon)) == NULL || (m - months) % 3 != 0)
		return -1;
	p += 3;
	if (archive_parse_num(&p, 4, &y) == -1)
		return -1;
	if (y < 50)
		y += 2000;
	else if (y < 1000)
		y += 1900;
	if (archive_parse_num(&p, 2, &hh) == -1 || *p++ != ':' ||
	    archive_parse_num(&p, 2, &mm) == -1)
		return -1;
	if (*p == ':') {
		p++;
		if (archive_parse_num(&p, 2, &ss) == -1)
			return -1;
	}
	if (d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_mday = d;
	tm.tm_mon = (int)((m - months) / 3);
	tm.tm_year = y - 1900;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	*t = timegm(&tm) - archive_parse_zone(p);
	return 0;
}

/* archive_parse_skey - the subject without its Re:/Fwd: prefixes and
 * [tags], blanks folded, ASCII lower case; 1 when a Re: was taken */
static int
archive_parse_skey(const char *subject, char *out, size_t outlen)
{
	static const char *const re[] = {"re:", "aw:", "sv:", "antw:"};
	static const char *const fw[] = {"fwd:", "fw:"};
	const char *p = subject, *e;
	size_t i, n = 0;
	int reply = 0, again = 1;

	while (again) {
		again = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		for (i = 0; i < sizeof(re) / sizeof(re[0]); i++)
			if (strncasecmp(p, re[i], strlen(re[i])) == 0) {
				p += strlen(re[i]);
				reply = again = 1;
			}
		for (i = 0; i < sizeof(fw) / sizeof(fw[0]); i++)
			if (strncasecmp(p, fw[i], strlen(fw[i])) == 0) {
				p += strlen(fw[i]);
				again = 1;
			}
		if (*p == '[' && (e = strchr(p, ']')) != NULL && e - p < 64) {
			p = e + 1;
			again = 1;
		}
	}
	for (; *p != '\0' && n + 1 < outlen; p++) {
		if (*p == ' ' || *p == '\t') {
			if (n > 0 && out[n - 1] != ' ')
				out[n++] = ' ';
		} else
			out[n++] = (char)tolower((unsigned char)*p);
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	if (outlen > 0)
		out[n] = '\0';
	return reply;
}

/* archive_parse_ids - each <id> of v, in order, into p->refs (the last
 * ARCHIVE_REFS_MAX kept, none twice, not the post's own) */
static int
archive_parse_ids(const char *v, struct archive_post *p)
{
	const char *a, *e;
	size_t n, i;
	char *id;

	for (a = strchr(v, '<'); a != NULL; a = strchr(e, '<')) {
		if ((e = strchr(a + 1, '>')) == NULL)
			break;
		n = (size_t)(e - a - 1);
		if (n == 0 || n > ARCHIVE_MSGID_MAX ||
		    (strlen(p->msgid) == n && memcmp(p->msgid, a + 1, n) == 0))
			continue;
		for (i = 0; i < p->nrefs; i++)
			if (strlen(p->refs[i]) == n &&
			    memcmp(p->refs[i], a + 1, n) == 0)
				break;
		if (i < p->nrefs)
			continue;
		if ((id = strndup(a + 1, n)) == NULL)
			return -1;
		if (p->nrefs == ARCHIVE_REFS_MAX) {
			free(p->refs[0]);
			memmove(p->refs, p->refs + 1,
			    (ARCHIVE_REFS_MAX - 1) * sizeof(p->refs[0]));
			p->nrefs--;
		}
		p->refs[p->nrefs++] = id;
	}
	return 0;
}

/* archive_parse_msgid - the Message-ID's id (in <>, or the value) and
 * its archive name, from the whole id (as Archived-At has it) */
static void
archive_parse_msgid(const char *v, const char *made, struct archive_post *p)
{
	const char *a = strchr(v, '<'), *e;

	if (a != NULL && (e = strchr(a + 1, '>')) != NULL && e > a + 1) {
		snprintf(p->msgid, sizeof(p->msgid), "%.*s",
		    (int)(e - a - 1 < ARCHIVE_MSGID_MAX ? e - a - 1
							: ARCHIVE_MSGID_MAX),
		    a + 1);
		archive_url_name(a, p->name, sizeof(p->name));
	} else if (v[0] != '\0' && strchr(v, ' ') == NULL) {
		(void)strlcpy(p->msgid, v, sizeof(p->msgid)); /* cut */
		archive_url_name(v, p->name, sizeof(p->name));
	} else {
		(void)strlcpy(p->msgid, made, sizeof(p->msgid)); /* fits */
		archive_url_name(made, p->name, sizeof(p->name));
	}
}

/* archive_parse_from - the author's name and address */
static void
archive_parse_from(char *v, struct archive_post *p)
{
	char *lt, *s;
	size_t n;

	if (header_addr(v, p->from_addr, sizeof(p->from_addr)) == -1)
		p->from_addr[0] = '\0';
	(void)cmd_mime_words(v, strlen(v) + 1);
	if ((lt = strrchr(v, '<')) != NULL)
		*lt = '\0';
	else if ((lt = strchr(v, '(')) != NULL &&
		 (s = strrchr(lt, ')')) != NULL) {
		*s = '\0';
		v = lt + 1;
	} else
		v[0] = '\0';
	while (*v == ' ' || *v == '"')
		v++;
	n = strlen(v);
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '"'))
		v[--n] = '\0';
	if (n == 0) {
		(void)strlcpy(p->from_name, p->from_addr,
		    sizeof(p->from_name)); /* cut: a name shown */
		if ((s = strchr(p->from_name, '@')) != NULL)
			*s = '\0';
	} else
		snprintf(p->from_name, sizeof(p->from_name), "%s", v);
}

/* archive_parse - the header into p */
int
archive_parse(const char *text, size_t len, const char *made_id, time_t now,
    struct archive_post *p)
{
	static char v[16384];
	char id[ARCHIVE_URL_MSGID_MAX + 1];
	struct tm tm;

	memset(p, 0, sizeof(*p));
	/* read as the list's Archived-At reads it (the same name) */
	if (header_value(text, len, "Message-ID", id, sizeof(id)) == -1)
		id[0] = '\0';
	archive_parse_msgid(id, made_id, p);
	if (header_value(text, len, "Subject", v, sizeof(v)) == -1)
		v[0] = '\0';
	(void)cmd_mime_words(v, sizeof(v));
	snprintf(
	    p->subject, sizeof(p->subject), "%s", v[0] ? v : "(no subject)");
	p->reply = archive_parse_skey(p->subject, p->skey, sizeof(p->skey));
	if (header_value(text, len, "From", v, sizeof(v)) == -1)
		v[0] = '\0';
	archive_parse_from(v, p);
	if (header_value(text, len, "Date", v, sizeof(v)) == -1 ||
	    archive_parse_date(v, &p->date) == -1 ||
	    p->date < ARCHIVE_DATE_MIN || p->date > now + ARCHIVE_DATE_AHEAD)
		p->date = now;
	if (gmtime_r(&p->date, &tm) == NULL ||
	    strftime(p->month, sizeof(p->month), "%Y-%m", &tm) == 0)
		snprintf(p->month, sizeof(p->month), "1970-01");
	if ((header_value(text, len, "References", v, sizeof(v)) == 0 &&
		archive_parse_ids(v, p) == -1) ||
	    (header_value(text, len, "In-Reply-To", v, sizeof(v)) == 0 &&
		archive_parse_ids(v, p) == -1)) {
		archive_parse_free(p);
		return -1;
	}
	return 0;
}

/* archive_parse_free - the references */
void
archive_parse_free(struct archive_post *p)
{
	size_t i;

	for (i = 0; i < p->nrefs; i++)
		free(p->refs[i]);
	p->nrefs = 0;
}
