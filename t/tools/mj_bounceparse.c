/*
 * mj_bounceparse - read bounce reports as the runner does
 * (lists/bounce_parse.c), in one process, for t/bench/bounces.sh:
 *
 *   mj_bounceparse [-n rounds] file...
 *
 * prints "file<TAB>address<TAB>class" for each failed address of each
 * report (the file's last path component), once; with -n reads them all
 * that many rounds and prints on stderr the reports per second of the
 * parsing alone (the files are read into memory first).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "lists.h"

/* slurp - the whole file (malloc'd); exits on failure */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if ((f = fopen(path, "r")) == NULL)
		err(EX_NOINPUT, "%s", path);
	do {
		if (n + 65536 > cap &&
		    (buf = realloc(buf, cap = (cap + 65536) * 2)) == NULL)
			err(EX_OSERR, "realloc");
		n += k = fread(buf + n, 1, cap - n, f);
	} while (k > 0);
	if (ferror(f))
		err(EX_IOERR, "%s", path);
	(void)fclose(f); /* read only */
	*len = n;
	return buf;
}

/* main - parse each file; print what was found; time the rounds */
int
main(int argc, char **argv)
{
	static struct bounce_found bf;
	struct timespec t0, t1;
	const char *base;
	char **text;
	size_t *len, i, k;
	long rounds = 1, r;
	double s;
	int c;

	while ((c = getopt(argc, argv, "n:")) != -1)
		if (c == 'n' && (rounds = strtol(optarg, NULL, 10)) > 0)
			continue;
		else
			errx(EX_USAGE,
			    "usage: mj_bounceparse [-n rounds] file...");
	argc -= optind, argv += optind;
	if ((text = calloc((size_t)argc + 1, sizeof(*text))) == NULL ||
	    (len = calloc((size_t)argc + 1, sizeof(*len))) == NULL)
		err(EX_OSERR, "calloc");
	for (i = 0; i < (size_t)argc; i++)
		text[i] = slurp(argv[i], &len[i]);
	for (i = 0; i < (size_t)argc; i++) {
		bounce_parse("example.org", "corpus", text[i], len[i], &bf);
		base = strrchr(argv[i], '/') != NULL ? strrchr(argv[i], '/') + 1
						     : argv[i];
		for (k = 0; k < bf.n; k++)
			printf("%s\t%s\t%s\n", base, bf.addr[k],
			    bounce_class_name(bf.class[k]));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < (size_t)argc; i++)
			bounce_parse(
			    "example.org", "corpus", text[i], len[i], &bf);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr, "%.0f reports/s\n",
	    s > 0 ? (double)argc * (double)rounds / s : 0.0);
	for (i = 0; i < (size_t)argc; i++)
		free(text[i]);
	free(text);
	free(len);
	return fflush(stdout) == EOF ? EX_IOERR : 0;
}
