/*
 * io_lines.c - a small text file of records, one a line, read into an
 * array: each line (its newline cut) parsed by the caller, damaged or
 * unwanted lines left out.  A missing file has no records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_lines.h"

/* io_lines_load - the records of path */
int
io_lines_load(const char *path, size_t size,
    int (*parse)(char *line, void *rec, void *arg), void *arg, void **v,
    size_t *n)
{
	size_t cap = 0, alloc = 0;
	char *line = NULL, *nv;
	FILE *fp;
	int r = 0;

	*v = NULL, *n = 0;
	if ((fp = fopen(path, "re")) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (getline(&line, &cap, fp) != -1) {
		line[strcspn(line, "\n")] = '\0';
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 8;
			if ((nv = reallocarray(*v, alloc, size)) == NULL) {
				r = -1;
				break;
			}
			*v = nv;
		}
		if (parse(line, (char *)*v + *n * size, arg) == 0)
			(*n)++;
	}
	if (ferror(fp))
		r = -1;
	free(line);
	fclose(fp);
	if (r == -1) {
		free(*v);
		*v = NULL, *n = 0;
	}
	return r;
}
