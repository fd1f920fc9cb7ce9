/*
 * arc_ar.c - the Authentication-Results (RFC 8601) a post arrived with:
 * which one the receiving MTA added, so that its results go into the
 * post's ARC-Authentication-Results, and which claim a trusted
 * authserv-id without being the MTA's, so that they are removed.
 *
 * An authserv-id is trusted when [arc] trusted_authserv_ids names it.
 * The MTA adds its field on top, above or just below its own Received,
 * so of the fields claiming a trusted id the topmost is the MTA's when
 * no Received of another host is above it; a Received is the MTA's own
 * when it is the topmost one or its "by" host is a trusted id.  Every
 * other field claiming a trusted id came from outside: a forgery, or
 * an earlier hop's.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arc.h"
#include "dkim_canon.h"

#define ARC_AR_FIELDS_MAX 1000 /* header fields looked at */

/* arc_ar_is - the field at p (name namelen bytes) is called name */
static int
arc_ar_is(const char *p, size_t namelen, const char *name)
{
	while (namelen > 0 && (p[namelen - 1] == ' ' || p[namelen - 1] == '\t'))
		namelen--;
	return strlen(name) == namelen && strncasecmp(p, name, namelen) == 0;
}

/* arc_ar_skip - past white space and comments (nested) from p */
static const char *
arc_ar_skip(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (depth == 0 && *p != ' ' && *p != '\t' && *p != '\r' &&
			 *p != '\n')
			break;
	}
	return p;
}

/* arc_ar_token - the token at p (up to white space, ';' or a comment)
 * into out; -1 when empty or too long */
static int
arc_ar_token(const char *p, const char *end, char *out, size_t outlen)
{
	size_t n = 0;

	while (p + n < end && strchr(" \t\r\n;(", p[n]) == NULL)
		n++;
	if (n == 0 || n >= outlen)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

/* arc_ar_id - the authserv-id of an Authentication-Results field (len
 * bytes, name included) into id; -1 when it has none */
static int
arc_ar_id(const char *field, size_t len, char *id, size_t idlen)
{
	const char *colon = memchr(field, ':', len), *end = field + len;

	if (colon == NULL)
		return -1;
	return arc_ar_token(arc_ar_skip(colon + 1, end), end, id, idlen);
}

/* arc_ar_trusted - id is one of ids (blanks or commas between them) */
static int
arc_ar_trusted(const char *ids, const char *id)
{
	size_t n = strlen(id), k;
	const char *p = ids;

	while (*p != '\0') {
		p += strspn(p, " \t,");
		k = strcspn(p, " \t,");
		if (k == n && k > 0 && strncasecmp(p, id, n) == 0)
			return 1;
		p += k;
	}
	return 0;
}

/* arc_ar_by_trusted - a Received field (len bytes) says "by" a host
 * whose name is a trusted id */
static int
arc_ar_by_trusted(const char *ids, const char *field, size_t len)
{
	const char *p = field, *end = field + len;
	char host[256];

	for (; p + 3 < end; p++) {
		if (strncasecmp(p, "by", 2) != 0 ||
		    (p > field && strchr(" \t\r\n", p[-1]) == NULL) ||
		    strchr(" \t\r\n", p[2]) == NULL)
			continue;
		return arc_ar_token(arc_ar_skip(p + 2, end), end, host,
			   sizeof(host)) == 0 &&
		       arc_ar_trusted(ids, host);
	}
	return 0;
}

/* arc_ar_take - the MTA's field (len bytes) as v's results: its value
 * without the white space around it; -1 when too long to copy */
static int
arc_ar_take(
    struct arc_verdict *v, const char *text, const char *field, size_t len)
{
	const char *p = memchr(field, ':', len), *end = field + len;

	for (p++; p < end && strchr(" \t\r\n", *p) != NULL; p++)
		;
	while (end > p && strchr(" \t\r\n", end[-1]) != NULL)
		end--;
	if ((size_t)(end - p) >= sizeof(v->results))
		return -1;
	memcpy(v->results, p, (size_t)(end - p));
	v->results[end - p] = '\0';
	v->ar = 1;
	v->ar_off = (size_t)(field - text);
	return 0;
}

/* arc_ar_judge - which of text's Authentication-Results is the MTA's
 * (v->ar, v->ar_off, v->results), under the trusted ids */
void
arc_ar_judge(
    struct arc_verdict *v, const char *ids, const char *text, size_t len)
{
	struct dkim_field *f;
	const char *body;
	char id[256];
	size_t n, i, received = 0;
	int other = 0, claimed = 0;

	v->ids = ids;
	v->ar = 0;
	v->results[0] = '\0';
	if (ids[strspn(ids, " \t,")] == '\0')
		return;
	if ((n = dkim_canon_fields(text, len, NULL, 0, &body)) >
	    ARC_AR_FIELDS_MAX)
		n = ARC_AR_FIELDS_MAX;
	if ((f = reallocarray(NULL, n + 1, sizeof(*f))) == NULL)
		return; /* none trusted */
	if ((i = dkim_canon_fields(text, len, f, n, &body)) < n)
		n = i;
	for (i = 0; i < n; i++) {
		if (arc_ar_is(f[i].p, f[i].namelen, "received")) {
			if (received++ > 0 &&
			    !arc_ar_by_trusted(ids, f[i].p, f[i].len))
				other = 1;
			continue;
		}
		if (!arc_ar_is(
			f[i].p, f[i].namelen, "authentication-results") ||
		    arc_ar_id(f[i].p, f[i].len, id, sizeof(id)) == -1 ||
		    !arc_ar_trusted(ids, id))
			continue;
		if (!claimed++ && !other)
			(void)arc_ar_take(v, text, f[i].p, f[i].len);
	}
	free(f);
}

/* arc_ar_drop - the field (len bytes at field, in text) claims a
 * trusted authserv-id and is not the MTA's: it is removed */
int
arc_ar_drop(const struct arc_verdict *v, const char *text, const char *field,
    size_t len)
{
	const char *colon = memchr(field, ':', len);
	char id[256];

	if (v->ids == NULL || colon == NULL ||
	    !arc_ar_is(
		field, (size_t)(colon - field), "authentication-results") ||
	    arc_ar_id(field, len, id, sizeof(id)) == -1 ||
	    !arc_ar_trusted(v->ids, id))
		return 0;
	return !(v->ar && (size_t)(field - text) == v->ar_off);
}

/* arc_ar_says_fail - the MTA's results (v's) hold arc=fail: the MTA
 * found the chain broken, whatever the list finds */
int
arc_ar_says_fail(const struct arc_verdict *v)
{
	const char *p, *q, *end = v->results + strlen(v->results);

	if (!v->ar)
		return 0;
	for (p = v->results; (p = strcasestr(p, "arc")) != NULL; p += 3) {
		if (p > v->results && strchr(" \t\r\n;", p[-1]) == NULL)
			continue;
		q = arc_ar_skip(p + 3, end);
		if (q < end && *q == '=' &&
		    strncasecmp(arc_ar_skip(q + 1, end), "fail", 4) == 0)
			return 1;
	}
	return 0;
}
