/*
 * list_walk.c - walk the lists directory: <lists>/<domain>/<list>/, a list
 * being a directory whose names pass the checks of mj_enqueue and that
 * holds a subscribers file (mjq-newlist always makes one; a list being
 * built under a dot-name is skipped by the name check).  A domain
 * directory that cannot be read is skipped: the walk shows what it can.
 */
#include <sys/stat.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "list_walk.h"
#include "list_path.h"
#include "listconf.h"
#include "names.h"

/* walk_domain - the lists of one domain, in name order */
static int
walk_domain(const struct settings *s, const char *domain,
    int (*fn)(void *, const char *, const char *), void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent **v;
	struct stat sb;
	int n, i, r = 0;

	if (list_path(dir, sizeof(dir), s, domain, NULL, NULL) == -1 ||
	    (n = scandir(dir, &v, NULL, alphasort)) == -1)
		return 0;
	for (i = 0; i < n; i++) {
		if (r == 0 && name_check_list(v[i]->d_name) == NULL &&
		    list_path(path, sizeof(path), s, domain, v[i]->d_name,
			"subscribers") == 0 &&
		    stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
			r = fn(arg, domain, v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return r;
}

/* list_walk - every list, domain by domain */
int
list_walk(const struct settings *s,
    int (*fn)(void *arg, const char *domain, const char *list), void *arg)
{
	struct dirent **v;
	int n, i, r = 0;

	if ((n = scandir(s->lists_dir, &v, NULL, alphasort)) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (r == 0 && name_check_domain(v[i]->d_name) == NULL)
			r = walk_domain(s, v[i]->d_name, fn, arg);
		free(v[i]);
	}
	free(v);
	return r;
}
