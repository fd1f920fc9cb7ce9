/*
 * list_path.c - the one spelling of where a list lives: [lists] dir, the
 * domain, the list, a file of it.  Every part that opens a list's file
 * or directory (the runner's functions, mj_enqueue's check that the
 * list exists, the web pages, mjq-members) asks here; mj_enqueue links
 * this object alone, so it stays free of the rest of liblists.
 */
#include <stdio.h>

#include "list_path.h"
#include "settings.h"

/* list_path - <lists>/<domain>[/<list>][/<file>] */
int
list_path(char *buf, size_t len, const struct settings *s, const char *domain,
    const char *list, const char *file)
{
	int r;

	if (list == NULL && file == NULL)
		r = snprintf(buf, len, "%s/%s", s->lists_dir, domain);
	else if (list == NULL)
		r = snprintf(buf, len, "%s/%s/%s", s->lists_dir, domain, file);
	else if (file == NULL)
		r = snprintf(buf, len, "%s/%s/%s", s->lists_dir, domain, list);
	else
		r = snprintf(
		    buf, len, "%s/%s/%s/%s", s->lists_dir, domain, list, file);
	return r < 0 || (size_t)r >= len ? -1 : 0;
}
