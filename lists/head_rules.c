/*
 * head_rules.c - a list's header rules, applied to each post before it
 * is signed (mlmmj's delheaders and customheaders):
 *
 * - [list] remove_headers: field names, blanks or commas between, whose
 *   fields a post loses (Received, X-Originating-IP: the poster's
 *   network kept private);
 * - custom_headers, a file in the list's directory: fields each post
 *   gets, one a line as in a message ("X-Team: infra"), continuation
 *   lines starting with a blank, # comments.
 *
 * Neither may name a field mjq writes or needs (head_rules_own): the
 * List-* fields, Precedence, X-Loop, Archived-At, the DKIM and ARC
 * fields, From, Date, Message-ID and the MIME fields; nor may a field
 * RFC 5322 allows once (Subject, To, Reply-To, ...) be added.  Such a
 * name is a configuration error naming the key or the file's line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "head_rules.h"

#define HEAD_RULES_MAX (16 * 1024)

/* Fields mjq writes or a post needs: never removed nor added.  A name
 * ending in '-' is a prefix. */
static const char *const head_rules_own[] = {
    "List-",
    "Precedence",
    "X-Loop",
    "Archived-At",
    "DKIM-Signature",
    "ARC-",
    "From",
    "Date",
    "Message-ID",
    "MIME-Version",
    "Content-",
    "Return-Path",
};

/* Fields a message has at most once (RFC 5322 3.6): never added. */
static const char *const head_rules_once[] = {
    "Sender",
    "Reply-To",
    "To",
    "Cc",
    "Bcc",
    "Subject",
    "In-Reply-To",
    "References",
};

/* head_rules_in - name (length n) is one of names (prefixes end in -) */
static int
head_rules_in(
    const char *name, size_t n, const char *const *names, size_t nnames)
{
	size_t i, k;

	for (i = 0; i < nnames; i++) {
		k = strlen(names[i]);
		if (names[i][k - 1] == '-'
			? n >= k && strncasecmp(name, names[i], k) == 0
			: n == k && strncasecmp(name, names[i], k) == 0)
			return 1;
	}
	return 0;
}

/* head_rules_name_ok - name (length n) is a field name (RFC 5322 3.6.8:
 * printable ASCII but ':') */
static int
head_rules_name_ok(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (name[i] <= 32 || name[i] >= 127 || name[i] == ':')
			return 0;
	return n > 0;
}

/* head_rules_check - whether name (length n) may be removed (adding 0)
 * or added (1); -1 with err when not */
static int
head_rules_check(
    const char *name, size_t n, int adding, char *err, size_t errlen)
{
	if (!head_rules_name_ok(name, n)) {
		snprintf(err, errlen, "'%.*s' is not a header field name",
		    (int)n, name);
		return -1;
	}
	if (head_rules_in(name, n, head_rules_own,
		sizeof(head_rules_own) / sizeof(head_rules_own[0]))) {
		snprintf(err, errlen,
		    "%.*s is written or needed by mjq: it cannot be %s", (int)n,
		    name, adding ? "added" : "removed");
		return -1;
	}
	if (adding &&
	    head_rules_in(name, n, head_rules_once,
		sizeof(head_rules_once) / sizeof(head_rules_once[0]))) {
		snprintf(err, errlen,
		    "%.*s is the post's own (one at most): it cannot be added",
		    (int)n, name);
		return -1;
	}
	return 0;
}

/* head_rules_parse - CONF_FUNC for [list] remove_headers: the names,
 * each checked, kept as written (a char[1024]) */
int
head_rules_parse(const char *text, void *var, char *err, size_t errlen)
{
	const char *p = text;
	size_t n;

	for (;;) {
		p += strspn(p, " \t,");
		if (*p == '\0')
			break;
		n = strcspn(p, " \t,");
		if (head_rules_check(p, n, 0, err, errlen) == -1)
			return -1;
		p += n;
	}
	if (strlcpy(var, text, HEAD_RULES_NAMES_MAX) >= HEAD_RULES_NAMES_MAX) {
		snprintf(err, errlen, "value longer than %d bytes",
		    HEAD_RULES_NAMES_MAX - 1);
		return -1;
	}
	return 0;
}

/* head_rules_removes - the field at p (length n) is one names removes */
int
head_rules_removes(const char *names, const char *p, size_t n)
{
	const char *colon = memchr(p, ':', n), *q = names;
	size_t k, fn;

	if (colon == NULL)
		return 0;
	fn = (size_t)(colon - p);
	while (fn > 0 && (p[fn - 1] == ' ' || p[fn - 1] == '\t'))
		fn--;
	for (;;) {
		q += strspn(q, " \t,");
		if (*q == '\0')
			return 0;
		k = strcspn(q, " \t,");
		if (k == fn && strncasecmp(q, p, k) == 0)
			return 1;
		q += k;
	}
}

/* head_rules_line - check one line of custom_headers (a field's first
 * line, a continuation, a comment or blank) and copy it; -1 with err */
static int
head_rules_line(
    FILE *out, const char *line, int *open, char *err, size_t errlen)
{
	const char *colon;

	if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0') {
		*open = 0;
		return 0;
	}
	if (line[0] == ' ' || line[0] == '\t') {
		if (!*open) {
			snprintf(
			    err, errlen, "a continuation line without a field");
			return -1;
		}
	} else {
		if ((colon = strchr(line, ':')) == NULL) {
			snprintf(err, errlen, "not 'Name: value'");
			return -1;
		}
		if (head_rules_check(
			line, (size_t)(colon - line), 1, err, errlen) == -1)
			return -1;
		*open = 1;
	}
	fwrite(line, 1, strcspn(line, "\r\n"), out);
	fputc('\n', out);
	return 0;
}

/* head_rules_load - the fields of the list's custom_headers file, each
 * at path, each ending in LF, malloc'd in *out (NULL when there is
 * none); -1 with err (the file, its line and the cause) */
int
head_rules_load(const char *path, char **out, char *err, size_t errlen)
{
	char line[1000], why[200];
	size_t size = 0;
	int lineno = 0, open = 0, r = 0;
	FILE *fp, *o;

	*out = NULL;
	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((o = open_memstream(out, &size)) == NULL) {
		fclose(fp);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	while (r == 0 && fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(fp))
			snprintf(why, sizeof(why), "line longer than %zu bytes",
			    sizeof(line) - 2),
			    r = -1;
		else
			r = head_rules_line(o, line, &open, why, sizeof(why));
		if (r == -1)
			snprintf(
			    err, errlen, "%s, line %d: %s", path, lineno, why);
	}
	if (r == 0 && ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		r = -1;
	}
	fclose(fp);
	if (fclose(o) == EOF || r == -1 || size == 0 || size > HEAD_RULES_MAX) {
		if (r == 0 && size > HEAD_RULES_MAX) {
			snprintf(err, errlen, "%s: longer than %d bytes", path,
			    HEAD_RULES_MAX);
			r = -1;
		}
		free(*out);
		*out = NULL;
	}
	return r;
}
