/*
 * spool_find.c - a message named by an operator: "QUEUE/10/x.org/10/list/
 * AAB-123-l" (as mj_queuerun -l prints it, or with the spool in front)
 * or the bare name "AAB-123-l", looked up under QUEUE/, HOLD/ and BAD/.
 *
 * A path is taken apart and built again with spool_message_path, and the
 * two must be equal: nothing the operator types can name a file outside
 * the message tree, or a state or .why file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"
#include "spool_find.h"
#include "spool_walk.h"

static const char *const spool_find_tops[] = {
    SPOOL_QUEUE, SPOOL_HOLD, SPOOL_BAD};

struct spool_find_walk {
	const char *name;
	struct spool_found *f;
	int n;
};

/* spool_find_one - spool_walk's callback: a message of that name */
static int
spool_find_one(void *arg, const struct spool_entry *e)
{
	struct spool_find_walk *w = arg;

	if (e->stray || strcmp(e->file, w->name) != 0)
		return 0;
	if (w->n++ == 0) {
		strlcpy(w->f->path, e->path, sizeof(w->f->path));
		w->f->function = e->function;
	}
	return 0;
}

/* spool_find_name - a bare name, under every top; EEXIST when more
 * than one message has it */
static int
spool_find_name(const char *spool, const char *name, struct spool_found *f)
{
	struct spool_find_walk w = {name, f, 0};
	struct spool_name sn;
	size_t i;
	int found = 0;

	if (spool_name_parse(name, &sn) == -1) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < 3; i++) {
		w.n = found;
		spool_walk(spool, spool_find_tops[i], spool_find_one, &w);
		if (w.n > found && found == 0)
			f->top = spool_find_tops[i];
		found = w.n;
	}
	if (found != 1) {
		errno = found == 0 ? ENOENT : EEXIST;
		return -1;
	}
	return 0;
}

/* spool_find - the message arg names; -1 with errno EINVAL (not a
 * message name or path), ENOENT (no such message), EEXIST (a bare name
 * that several messages have) */
int
spool_find(const char *spool, const char *arg, struct spool_found *f)
{
	char copy[PATH_MAX], *part[6], *save = NULL, *p;
	size_t n = strlen(spool), i;
	struct spool_name sn;

	memset(f, 0, sizeof(*f));
	if (strchr(arg, '/') == NULL)
		return spool_find_name(spool, arg, f);
	if (strncmp(arg, spool, n) == 0 && arg[n] == '/')
		arg += n + 1;
	if (strlcpy(copy, arg, sizeof(copy)) >= sizeof(copy))
		goto bad;
	for (i = 0, p = strtok_r(copy, "/", &save); p != NULL && i < 6;
	     p = strtok_r(NULL, "/", &save))
		part[i++] = p;
	if (i != 6 || p != NULL || strlen(part[1]) != 2 ||
	    strlen(part[3]) != 2 ||
	    spool_function_lookup(part[4], &f->function) == -1 ||
	    spool_name_parse(part[5], &sn) == -1)
		goto bad;
	for (i = 0; i < 3 && f->top == NULL; i++)
		if (strcmp(part[0], spool_find_tops[i]) == 0)
			f->top = spool_find_tops[i];
	if (f->top == NULL ||
	    spool_message_path(f->path, sizeof(f->path), spool, f->top,
		atoi(part[1]), part[2], atoi(part[3]), f->function,
		part[5]) == -1 ||
	    strcmp(f->path + n + 1, arg) != 0)
		goto bad;
	if (access(f->path, F_OK) == -1)
		return -1;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
