/*
 * lockedit_lines.c - a lockedit rewrite made line by line: each line of
 * the locked file handed to the caller's callback, which keeps it,
 * leaves it out or writes another in its place, then adds what goes at
 * the end and says whether the new text replaces the file.  The lock,
 * the commit and their failures are lockedit's (lockedit.c): a rewrite
 * that fails leaves the old file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockedit.h"

/* lockedit_lines - the new text of le's file through fn, in *out
 * (malloc'd, *outlen bytes; NULL on error): fn's answer to the end call
 * (LOCKEDIT_COMMIT or LOCKEDIT_LEAVE), or -1 (fn's -1, or memory) */
int
lockedit_lines(struct lockedit *le, int flags, lockedit_line_fn *fn, void *arg,
    char **out, size_t *outlen)
{
	char *p, *end, *nl;
	size_t len;
	FILE *fp;
	int r = 0, nlc;

	*out = NULL, *outlen = 0;
	if ((fp = open_memstream(out, outlen)) == NULL)
		return -1;
	end = le->text +
	      ((flags & LOCKEDIT_RECORDS) ? strlen(le->text) : le->len);
	for (p = le->text; p < end && r != -1; p = nl) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		nlc = nl[-1] == '\n';
		len = (size_t)(nl - p) - (size_t)nlc;
		if (len == 0 && (flags & LOCKEDIT_RECORDS))
			continue;
		p[len] = '\0';
		r = fn(arg, fp, p, len);
		if (nlc)
			p[len] = '\n';
		nlc = nlc || (flags & LOCKEDIT_RECORDS);
		if (r == LOCKEDIT_KEEP)
			fwrite(p, 1, len, fp);
		if ((r == LOCKEDIT_KEEP || r == LOCKEDIT_REPLACE) && nlc)
			fputc('\n', fp);
	}
	if (r != -1)
		r = fn(arg, fp, NULL, 0);
	if (fclose(fp) == EOF)
		r = -1;
	if (r == -1) {
		free(*out);
		*out = NULL, *outlen = 0;
	}
	return r;
}

/* lockedit_rewrite - path locked, read, rewritten through fn (see
 * lockedit_lines) and committed unless fn leaves it; 0, or -1 with
 * errno (the old file stays) */
int
lockedit_rewrite(const char *path, int flags, lockedit_line_fn *fn, void *arg)
{
	struct lockedit le;
	char *out;
	size_t outlen;
	int r;

	if (lockedit_open(&le, path) == -1)
		return -1;
	if ((r = lockedit_lines(&le, flags, fn, arg, &out, &outlen)) ==
	    LOCKEDIT_COMMIT)
		r = lockedit_commit(&le, out, outlen);
	else if (r == LOCKEDIT_LEAVE)
		r = 0;
	free(out);
	lockedit_close(&le);
	return r;
}
