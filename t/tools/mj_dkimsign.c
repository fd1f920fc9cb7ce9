/*
 * mj_dkimsign - sign a message file as the runner does (lists/dkim_sign.c)
 * and print it signed, or time the signing, for t/750-dkim.bats and
 * t/bench/dkim.sh.
 *
 *   mj_dkimsign -C conf domain file          the signed message on stdout
 *   mj_dkimsign -C conf -n N domain file     sign N times; the rate per
 *                                            CPU second
 *   -a                                       ARC-seal too, as a post's
 *                                            first set (arc_sign_text)
 *
 * Exit 0 done, 1 signing failed, 2 usage or setup.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "lists.h"
#include "log.h"
#include "settings.h"

/* now - CPU seconds of this process, as openssl speed counts them (so
 * the two compare on a busy machine) */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	const char *conf = NULL;
	struct arc_verdict *arc = NULL;
	struct dkim_signer *ds;
	struct lists_settings ls;
	struct cluster_settings cs;
	struct settings_part part[2] = {
	    lists_settings_part(&ls), cluster_settings_part(&cs)};
	struct settings s;
	struct dkim_conf dc;
	char why[PATH_MAX + 200], *text = NULL, *sig;
	size_t len = 0, siglen;
	long i, n = 0;
	double t0;
	FILE *fp;
	int c;

	while ((c = getopt(argc, argv, "aC:n:")) != -1)
		switch (c) {
		case 'a':
			if ((arc = calloc(1, sizeof(*arc))) == NULL)
				err(2, "calloc");
			arc->seal = arc->instance = 1;
			break;
		case 'C':
			conf = optarg;
			break;
		case 'n':
			n = atol(optarg);
			break;
		default:
			goto usage;
		}
	if (conf == NULL || argc - optind != 2)
		goto usage;
	log_open("mj_dkimsign", LOG_TO_STDERR);
	if (settings_load(&s, part, 2, conf, 0, why, sizeof(why)) == -1 ||
	    dkim_conf_load(&s, &ls, argv[optind], &dc, why, sizeof(why)) ==
		-1 ||
	    (ds = dkim_sign_open(why, sizeof(why))) == NULL)
		errx(2, "%s", why);
	if ((fp = fopen(argv[optind + 1], "r")) == NULL)
		err(2, "%s", argv[optind + 1]);
	for (;;) {
		if ((text = realloc(text, len + 65536)) == NULL)
			err(2, "realloc");
		if ((i = (long)fread(text + len, 1, 65536, fp)) <= 0)
			break;
		len += (size_t)i;
	}
	fclose(fp);
	t0 = now();
	for (i = 0; i < (n > 0 ? n : 1); i++) {
		if (arc_sign_text(ds, &dc, argv[optind], text, len, arc, &sig,
			&siglen, why, sizeof(why)) == -1)
			errx(1, "%s", why);
		if (i + 1 < n)
			free(sig);
	}
	if (n > 0)
		printf("%ld signatures in %.3fs of CPU: %.0f/s\n", n,
		    now() - t0, (double)n / (now() - t0));
	else if (fwrite(sig, 1, siglen, stdout) != siglen ||
		 fwrite(text, 1, len, stdout) != len)
		err(2, "stdout");
	free(sig);
	free(text);
	free(arc);
	dkim_sign_close(ds);
	return 0;
usage:
	fprintf(stderr, "usage: mj_dkimsign -C conf [-a] [-n N] domain file\n");
	return 2;
}
