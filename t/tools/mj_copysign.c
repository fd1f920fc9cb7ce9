/*
 * mj_copysign - make one-click copies' own header fields as the delivery
 * threads do (lists/rcpt_head.c: the unsubscribe link, then a DKIM
 * signature over those fields and the shared text), for t/750 and for
 * measuring what a copy costs beside the RSA operation.
 *
 *   mj_copysign -C conf domain list file addr    that copy on stdout
 *   mj_copysign -C conf -n N [-t T] domain list file
 *                      N copies (to u1@d.test ...) over T threads (one
 *                      unless given, as the runner's delivery threads
 *                      when more): CPU and wall time per copy
 *
 * The unsubscribe link's base is -u url (default
 * https://example.invalid/u); -l: the text's footer has the place of each
 * copy's own link (a footer's $UNSUBSCRIBE_URL): each copy is made whole,
 * its body hashed and signed per copy, -s sealed for ARC per copy too
 * (the copy alone on stdout).  The secret and the DKIM keys are conf's,
 * read as the runner reads them.  Under valgrind --tool=callgrind
 * --toggle-collect=rcpt_head_make only the copies are counted.
 *
 * Exit 0 done, 1 a copy failed, 2 usage or setup.
 */
#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "lists.h"
#include "log.h"
#include "settings.h"

#define MAX_THREADS 200

/* cpu_now - CPU seconds of this process, as openssl speed counts them */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One thread's share of the copies. */
struct copies {
	const struct rcpt_head *h;
	long from, n;
};

/* copies_make - a thread's copies, made and let go */
static void *
copies_make(void *arg)
{
	struct copies *c = arg;
	char addr[300], *head;
	size_t headlen;
	long i;

	for (i = c->from; i < c->from + c->n; i++) {
		snprintf(addr, sizeof(addr), "u%ld@d%ld.test", i + 1, i % 100);
		if (rcpt_head_make(c->h, addr, &head, &headlen) == -1)
			errx(1, "cannot make the copy of %s", addr);
		free(head);
	}
	return NULL;
}

/* wall_now - seconds on the monotonic clock */
static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* text_read - the whole of path, malloc'd */
static char *
text_read(const char *path, size_t *len)
{
	char *text = NULL;
	size_t got;
	FILE *fp;

	*len = 0;
	if ((fp = fopen(path, "r")) == NULL)
		err(2, "%s", path);
	for (;;) {
		if ((text = realloc(text, *len + 65536)) == NULL)
			err(2, "realloc");
		if ((got = fread(text + *len, 1, 65536, fp)) == 0)
			break;
		*len += got;
	}
	if (ferror(fp))
		err(2, "%s", path);
	fclose(fp);
	return text;
}

int
main(int argc, char **argv)
{
	const char *conf = NULL, *url = "https://example.invalid/u";
	const char *domain, *list;
	struct dkim_signer *ds;
	struct dkim_prep *p;
	struct rcpt_head *h;
	struct listconf lc;
	struct dkim_conf dc;
	struct lists_settings ls;
	struct cluster_settings cs;
	struct settings_part lsp[2] = {
	    lists_settings_part(&ls), cluster_settings_part(&cs)};
	struct settings s;
	char why[PATH_MAX + 200], *text, *head;
	size_t len, headlen;
	long i, n = 0, t = 1;
	double t0, t1, w0, w1;
	struct arc_verdict v;
	int c, link = 0, seal = 0;

	while ((c = getopt(argc, argv, "C:ln:st:u:")) != -1)
		switch (c) {
		case 'l':
			link = 1;
			break;
		case 's':
			seal = 1;
			break;
		case 'C':
			conf = optarg;
			break;
		case 'n':
			n = atol(optarg);
			break;
		case 't':
			t = atol(optarg);
			break;
		case 'u':
			url = optarg;
			break;
		default:
			goto usage;
		}
	if (conf == NULL || argc - optind != (n > 0 ? 3 : 4) || t < 1 ||
	    t > MAX_THREADS)
		goto usage;
	domain = argv[optind];
	list = argv[optind + 1];
	memset(&lc, 0, sizeof(lc));
	if (strlcpy(lc.unsubscribe_url, url, sizeof(lc.unsubscribe_url)) >=
	    sizeof(lc.unsubscribe_url))
		errx(2, "-u: too long");
	log_open("mj_copysign", LOG_TO_STDERR);
	if (settings_load(&s, lsp, 2, conf, 0, why, sizeof(why)) == -1 ||
	    dkim_conf_load(&s, &ls, domain, &dc, why, sizeof(why)) == -1 ||
	    (ds = dkim_sign_open(why, sizeof(why))) == NULL ||
	    rcpt_head_open(&h, &ls, &lc, list, domain, why, sizeof(why)) == -1)
		errx(2, "%s", why);
	text = text_read(argv[optind + 2], &len);
	if (dkim_sign_prepare(
		ds, &dc, domain, text, len, &p, why, sizeof(why)) == -1)
		errx(2, "%s", why);
	rcpt_head_sign(h, p);
	memset(&v, 0, sizeof(v));
	v.seal = v.instance = 1;
	if (link && rcpt_head_text(h, text, len, seal ? &v : NULL) == -1)
		errx(2, "out of memory");
	if (link && !rcpt_head_whole(h))
		errx(2, "-l: the text has no place for the link");
	if (n == 0) {
		if (rcpt_head_make(h, argv[optind + 3], &head, &headlen) == -1)
			errx(1, "cannot make the copy of %s", argv[optind + 3]);
		if (fwrite(head, 1, headlen, stdout) != headlen ||
		    (!link && fwrite(text, 1, len, stdout) != len) ||
		    fflush(stdout) == EOF)
			err(2, "stdout");
		free(head);
	} else {
		struct copies part[MAX_THREADS];
		pthread_t tid[MAX_THREADS];

		t0 = cpu_now();
		w0 = wall_now();
		for (i = 0; i < t; i++) {
			part[i].h = h;
			part[i].from = n * i / t;
			part[i].n = n * (i + 1) / t - part[i].from;
			if ((errno = pthread_create(
				 &tid[i], NULL, copies_make, &part[i])) != 0)
				err(2, "pthread_create");
		}
		for (i = 0; i < t; i++)
			pthread_join(tid[i], NULL);
		t1 = cpu_now();
		w1 = wall_now();
		printf("%ld copies over %ld threads in %.3fs of CPU (%.3fs "
		       "wall): %.0f/s, %.1f us each\n",
		    n, t, t1 - t0, w1 - w0, (double)n / (t1 - t0),
		    (t1 - t0) / (double)n * 1e6);
	}
	rcpt_head_free(h);
	dkim_sign_close(ds);
	free(text);
	return 0;
usage:
	fprintf(stderr,
	    "usage: mj_copysign -C conf [-u url] domain list file "
	    "addr\n"
	    "       mj_copysign -C conf [-u url] -n N [-t T] domain "
	    "list file\n");
	return 2;
}
