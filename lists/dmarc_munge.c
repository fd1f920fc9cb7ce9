/*
 * dmarc_munge.c - what a list does to a post so that a receiver checking
 * the poster's DMARC policy accepts it: the list setting
 * dmarc_mitigation, the poster read from From, and the From the list
 * writes instead ("Alice via mylist" <mylist@example.org>), aligned with
 * the list's own DKIM signature.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dmarc.h"

static const char *const dmarc_mitigation_names[] = {
    [DMARC_MIT_NONE] = "none",
    [DMARC_MIT_MUNGE_IF_STRICT] = "munge_if_strict",
    [DMARC_MIT_MUNGE] = "munge",
    [DMARC_MIT_WRAP] = "wrap",
};
#define DMARC_NMIT                                                             \
	(sizeof(dmarc_mitigation_names) / sizeof(dmarc_mitigation_names[0]))

/* dmarc_mitigation_parse - conf_parse_fn of dmarc_mitigation (an int) */
int
dmarc_mitigation_parse(const char *text, void *var, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < DMARC_NMIT; i++)
		if (strcmp(text, dmarc_mitigation_names[i]) == 0) {
			*(int *)var = (int)i;
			return 0;
		}
	snprintf(err, errlen, "want none, munge_if_strict, munge or wrap");
	return -1;
}

/* dmarc_from_name - the display name before '<' (p .. lt), unquoted and
 * trimmed, in name */
static void
dmarc_from_name(const char *p, const char *lt, char *name, size_t namelen)
{
	size_t n = 0;

	while (p < lt && isspace((unsigned char)*p))
		p++;
	while (lt > p && isspace((unsigned char)lt[-1]))
		lt--;
	if (lt - p >= 2 && *p == '"' && lt[-1] == '"')
		p++, lt--;
	for (; p < lt && n + 1 < namelen; p++) {
		if (*p == '\\' && p + 1 < lt)
			p++;
		if (*p == '\r' || *p == '\n')
			continue;
		name[n++] = *p == '\t' ? ' ' : *p;
	}
	name[n] = '\0';
}

/* dmarc_addr_ok - an address the list may write into its own header
 * fields: printable ASCII without blanks, line ends, quotes or angle
 * brackets (a folded or hostile From is left alone, never copied) */
static int
dmarc_addr_ok(const char *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] <= ' ' || a[i] >= 0x7f || strchr("<>\"\\,;", a[i]))
			return 0;
	return 1;
}

/* dmarc_from - the address and display name of the header field From of
 * a header section (text, len: up to the empty line); -1 without one */
int
dmarc_from(const char *text, size_t len, char *addr, size_t addrlen, char *name,
    size_t namelen)
{
	const char *p = text, *end = text + len, *e, *v, *lt, *gt, *a;
	size_t n;

	addr[0] = name[0] = '\0';
	for (; p < end; p = e) {
		for (e = p; e < end;) {
			const char *nl = memchr(e, '\n', (size_t)(end - e));
			e = nl == NULL ? end : nl + 1;
			if (e >= end || (*e != ' ' && *e != '\t'))
				break;
		}
		if ((size_t)(e - p) > 5 && strncasecmp(p, "From:", 5) == 0)
			break;
	}
	if (p >= end)
		return -1;
	v = p + 5;
	if ((lt = memchr(v, '<', (size_t)(e - v))) != NULL &&
	    (gt = memchr(lt, '>', (size_t)(e - lt))) != NULL) {
		dmarc_from_name(v, lt, name, namelen);
		a = lt + 1;
		n = (size_t)(gt - a);
	} else {
		/* addr-spec alone, maybe with a (comment) after it */
		for (a = v; a < e && isspace((unsigned char)*a); a++)
			;
		for (n = 0;
		     a + n < e && !isspace((unsigned char)a[n]) && a[n] != '(';)
			n++;
	}
	if (n == 0 || n >= addrlen || memchr(a, '@', n) == NULL ||
	    !dmarc_addr_ok(a, n))
		return -1;
	memcpy(addr, a, n);
	addr[n] = '\0';
	return 0;
}

/* dmarc_munge_from - the From field the list writes for the poster:
 * "name via list" <list@domain> (the address when there is no name); an
 * encoded-word name (RFC 2047) stays unquoted, as it must */
void
dmarc_munge_from(FILE *fp, const char *name, const char *addr, const char *list,
    const char *domain)
{
	const char *who = name[0] != '\0' ? name : addr, *p;

	if (strstr(who, "=?") != NULL) {
		fprintf(
		    fp, "From: %s via %s <%s@%s>\n", who, list, list, domain);
		return;
	}
	fputs("From: \"", fp);
	for (p = who; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', fp);
		fputc(*p, fp);
	}
	fprintf(fp, " via %s\" <%s@%s>\n", list, list, domain);
}
