/*
 * fuzz_subscribers - libFuzzer target: reading a list's subscribers file
 * (listconf_subscribers_each) and its repeat check (addr_set.c).
 *
 * The input is written as the subscribers file of a list in a private
 * temporary directory.  The reader must give exactly the valid addresses
 * of the file, in the file's order, each once (case-insensitively), as a
 * plain reading of the same bytes finds them: the compact repeat check
 * may never drop a subscriber nor let a repeat through.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "log.h"
#include "lists.h"
#include "settings.h"
#include "spool_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct settings fuzz_settings;
static char fuzz_file[PATH_MAX];

struct fuzz_list {
	char **v;
	size_t n, cap;
};

/* fuzz_cleanup - remove the temporary tree at exit */
static void
fuzz_cleanup(void)
{
	char path[PATH_MAX + 32];

	unlink(fuzz_file);
	snprintf(path, sizeof(path), "%s/d/l", fuzz_settings.lists_dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/d", fuzz_settings.lists_dir);
	rmdir(path);
	rmdir(fuzz_settings.lists_dir);
}

/* fuzz_init - lists/d/l/ in a temporary directory, made once */
static void
fuzz_init(void)
{
	char dir[] = "/tmp/fuzz_subscribers.XXXXXX", path[PATH_MAX + 32];

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(fuzz_settings.lists_dir, sizeof(fuzz_settings.lists_dir), "%s",
	    dir);
	snprintf(path, sizeof(path), "%s/d", dir);
	if (mkdir(path, 0700) == -1)
		abort();
	snprintf(path, sizeof(path), "%s/d/l", dir);
	if (mkdir(path, 0700) == -1)
		abort();
	snprintf(fuzz_file, sizeof(fuzz_file), "%s/subscribers", path);
	log_open("fuzz_subscribers", LOG_TO_NONE);
	atexit(fuzz_cleanup);
}

/* fuzz_push - keep a copy of an address */
static int
fuzz_push(void *arg, const char *addr)
{
	struct fuzz_list *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		if ((l->v = realloc(l->v, l->cap * sizeof(*l->v))) == NULL)
			abort();
	}
	if ((l->v[l->n++] = strdup(addr)) == NULL)
		abort();
	return 0;
}

/* fuzz_expect - the same file read plainly: each line up to a NUL, a
 * '#' at its start or after a blank starts a comment, its first word
 * (a mode word may follow), valid addresses, first of repeats */
static void
fuzz_expect(const uint8_t *data, size_t size, struct fuzz_list *want)
{
	char *line, *p, *e;
	size_t i = 0, j, len, k;

	while (i < size) {
		for (j = i; j < size && data[j] != '\n'; j++)
			;
		len = j - i;
		if ((line = malloc(len + 1)) == NULL)
			abort();
		memcpy(line, data + i, len);
		line[len] = '\0';
		for (k = 0; line[k] != '\0'; k++)
			if (line[k] == '#' &&
			    (k == 0 || isspace((unsigned char)line[k - 1]))) {
				line[k] = '\0';
				break;
			}
		for (p = line; isspace((unsigned char)*p); p++)
			;
		/* the address is the first word; a second is its mode */
		for (e = p; *e != '\0' && !isspace((unsigned char)*e); e++)
			;
		*e = '\0';
		if (*p != '\0' && name_addr_ok(p)) {
			for (k = 0; k < want->n; k++)
				if (strcasecmp(want->v[k], p) == 0)
					break;
			if (k == want->n)
				fuzz_push(want, p);
		}
		free(line);
		i = j + 1;
	}
}

/* fuzz_free - a list's copies */
static void
fuzz_free(struct fuzz_list *l)
{
	while (l->n > 0)
		free(l->v[--l->n]);
	free(l->v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct fuzz_list got = {0}, want = {0};
	char err[512];
	FILE *fp;
	size_t i;

	if (!ready) {
		fuzz_init();
		ready = 1;
	}
	if ((fp = fopen(fuzz_file, "w")) == NULL ||
	    fwrite(data, 1, size, fp) != size || fclose(fp) == EOF)
		abort();
	if (listconf_subscribers_each(&fuzz_settings, "d", "l", fuzz_push, &got,
		err, sizeof(err)) == -1)
		abort();
	fuzz_expect(data, size, &want);
	if (got.n != want.n)
		abort();
	for (i = 0; i < got.n; i++)
		if (strcmp(got.v[i], want.v[i]) != 0)
			abort();
	fuzz_free(&got);
	fuzz_free(&want);
	return 0;
}
