/*
 * bounce_read_prose.c - the failed addresses of a notification written
 * for humans, by the family tables (bounce_family.h): the first family
 * whose detect strings the report holds and whose line forms find an
 * address there decides; each address is judged by its line and the
 * lines after it, up to the next address.  The forms are compiled once
 * (POSIX regcomp, REG_EXTENDED | REG_ICASE) and shared by the threads.
 */
#include <ctype.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounce_family.h"
#include "bounce_read.h"
#include "cmd_mime.h"
#include "header.h"
#include "log.h"

#define PROSE_LINE_MAX 1024
#define PROSE_REASON_MAX 2048

/* The families, the most particular first. */
static const struct bounce_family *const families[] = {
    &bounce_fam_qmail,
    &bounce_fam_postfix,
    &bounce_fam_sendmail,
    &bounce_fam_v5sendmail,
    &bounce_fam_exchange,
    &bounce_fam_domino,
    &bounce_fam_exim,
    &bounce_fam_japan,
    &bounce_fam_fml,
    &bounce_fam_other,
};
#define FAMILIES (sizeof(families) / sizeof(families[0]))

static regex_t compiled[FAMILIES][BOUNCE_FAMILY_LINES];
static int compiled_ok[FAMILIES][BOUNCE_FAMILY_LINES];
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

/* prose_compile - every family's line forms, once; a form that does
 * not compile is logged and left out */
static void
prose_compile(void)
{
	size_t f, i;

	for (f = 0; f < FAMILIES; f++)
		for (i = 0;
		     i < BOUNCE_FAMILY_LINES && families[f]->lines[i] != NULL;
		     i++)
			if (regcomp(&compiled[f][i], families[f]->lines[i],
				REG_EXTENDED | REG_ICASE) == 0)
				compiled_ok[f][i] = 1;
			else
				log_warnx("bounce family %s: line form %zu "
					  "does not compile",
				    families[f]->name, i);
}

/* holds - (p, len), NUL-terminated at len, or the header fields hdr
 * hold one of the strings (NULL first: yes) */
static int
holds(const char *const *strs, const char *p, size_t len, const char *hdr)
{
	const char *q;
	size_t i;

	if (strs[0] == NULL)
		return 1;
	for (i = 0; i < 8 && strs[i] != NULL; i++)
		if (strcasestr(hdr, strs[i]) != NULL ||
		    ((q = strcasestr(p, strs[i])) != NULL && q < p + len))
			return 1;
	return 0;
}

/* prose_copy - the line at q (up to end) into line, NUL-terminated and
 * cut to its size; where the line ends (its newline, or end) */
static const char *
prose_copy(const char *q, const char *end, char *line, size_t size)
{
	const char *nl;
	size_t n;

	if ((nl = memchr(q, '\n', (size_t)(end - q))) == NULL)
		nl = end;
	n = (size_t)(nl - q) < size - 1 ? (size_t)(nl - q) : size - 1;
	memcpy(line, q, n);
	line[n] = '\0';
	return nl;
}

/* prose_start - where the family's list starts in (p, len) */
static const char *
prose_start(const struct bounce_family *fam, const char *p, size_t len)
{
	const char *end = p + len, *nl, *q;
	char line[PROSE_LINE_MAX];
	size_t i;

	if (fam->start[0] == NULL)
		return p;
	for (q = p; q < end; q = nl + 1) {
		nl = prose_copy(q, end, line, sizeof(line));
		for (i = 0; i < 8 && fam->start[i] != NULL; i++)
			if (strcasestr(line, fam->start[i]) != NULL)
				return nl < end ? nl + 1 : end;
	}
	return p;
}

/* prose_line - the address a line names in one of family f's forms:
 * its offset in line and length; 0 found, -1 none */
static int
prose_line(size_t f, const char *line, size_t *off, size_t *n)
{
	regmatch_t m[8];
	size_t i;
	int g;

	for (i = 0; i < BOUNCE_FAMILY_LINES && families[f]->lines[i] != NULL;
	     i++) {
		if (!compiled_ok[f][i] ||
		    regexec(&compiled[f][i], line, 8, m, 0) != 0)
			continue;
		/* the last group that holds an '@': the address */
		for (g = 7; g > 0 &&
			    (m[g].rm_so == -1 ||
				memchr(line + m[g].rm_so, '@',
				    (size_t)(m[g].rm_eo - m[g].rm_so)) == NULL);
		     g--)
			;
		if (g == 0)
			continue;
		*off = (size_t)m[g].rm_so;
		*n = (size_t)(m[g].rm_eo - m[g].rm_so);
		return 0;
	}
	return -1;
}

/* What prose_family has read: the address last found, its line, and
 * where the text before it began (after the address before it). */
struct prose_last {
	int i;
	const char *from, *before;
};

/* prose_judge - the address last found judged by its text up to to */
static void
prose_judge(struct bounce_found *bf, struct prose_last *l, const char *to)
{
	size_t n;
	int i = l->i;

	if (i < 0)
		return;
	l->i = -1;
	n = (size_t)(to - l->from);
	bounce_found_judge(
	    bf, i, NULL, l->from, n < PROSE_REASON_MAX ? n : PROSE_REASON_MAX);
	/* nothing decided after it: the reason above it (EZweb, Notes:
	 * "The user(s) account is disabled." over "<gone@...>") */
	if (bf->class[i] == BOUNCE_UNKNOWN && l->before != NULL &&
	    l->before < l->from) {
		n = (size_t)(l->from - l->before);
		bf->why[i][0] = '\0';
		bounce_found_judge(bf, i, NULL,
		    l->from - (n < PROSE_REASON_MAX ? n : PROSE_REASON_MAX),
		    (n < PROSE_REASON_MAX ? n : PROSE_REASON_MAX) +
			(size_t)(to - l->from));
	}
	l->before = to;
}

/* prose_family - the addresses family f finds in (p, len) */
static size_t
prose_family(size_t f, const char *p, size_t len, struct bounce_found *bf)
{
	const char *end = p + len, *nl, *q;
	char line[PROSE_LINE_MAX];
	struct prose_last last = {-1, NULL, NULL};
	size_t off, alen, found = 0;
	int i;

	last.before = prose_start(families[f], p, len);
	for (q = last.before; q < end; q = nl + 1) {
		nl = prose_copy(q, end, line, sizeof(line));
		if (prose_line(f, line, &off, &alen) == -1)
			continue;
		prose_judge(bf, &last, q);
		if ((i = bounce_found_add(bf, families[f]->name, line + off,
			 alen, NULL, NULL, 0)) == -1)
			continue;
		found++;
		last.i = i, last.from = q;
		if (families[f]->line_only)
			prose_judge(bf, &last, nl);
	}
	prose_judge(bf, &last, end);
	return found;
}

/* bounce_read_prose - the first family's addresses */
size_t
bounce_read_prose(const char *msg, size_t mlen, const char *p, size_t len,
    struct bounce_found *bf)
{
	char hdr[1024], v[480];
	size_t f, found;

	if (pthread_once(&compile_once, prose_compile) != 0)
		return 0;
	hdr[0] = '\0';
	if (header_value(msg, mlen, "Subject", v, sizeof(v)) == 0)
		(void)strlcat(hdr, v, sizeof(hdr)); /* cut: a hint only */
	if (header_value(msg, mlen, "From", v, sizeof(v)) == 0)
		(void)strlcat(hdr, v, sizeof(hdr));
	for (f = 0; f < FAMILIES; f++)
		if (holds(families[f]->detect, p, len, hdr) &&
		    (found = prose_family(f, p, len, bf)) > 0)
			return found;
	return 0;
}

/* bounce_read_reason - what the text says from addr's first mention to
 * the end of its paragraph (a blank line) */
const char *
bounce_read_reason(
    const char *p, size_t len, const char *addr, size_t max, size_t *rlen)
{
	const char *q, *end = p + len, *e;
	size_t k = strlen(addr);

	*rlen = 0;
	for (q = p; k > 0 && q + k <= end; q++) {
		if (strncasecmp(q, addr, k) != 0)
			continue;
		for (e = q; e < end && (size_t)(e - q) < max; e++)
			if (*e == '\n' && e + 1 < end &&
			    (e[1] == '\n' ||
				(e[1] == ' ' && e + 2 < end && e[2] == '\n')))
				break;
		*rlen = (size_t)(e - q);
		return q;
	}
	return p;
}
