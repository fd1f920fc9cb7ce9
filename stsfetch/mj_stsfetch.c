/*
 * mj_stsfetch.c - fetch one MTA-STS policy (RFC 8461 3.3) for a runner.
 *
 * A runner's policy thread runs this program for each policy it fetches
 * (deliver/deliver_sts_fetch.c), so that the runner itself does not link
 * libcurl and the two dozen libraries that come with it.  The program's
 * interface is its arguments, its standard output and its exit code:
 *
 *   mj_stsfetch [-A cafile] [-c host:port] [-m bytes] [-t ms] domain
 *
 *   exit 0   the policy file on standard output, as served
 *   exit 1   one line on standard output: why there is none
 *   exit 2   the same, the server's certificate having failed
 *   exit 3   the same, what was served being no policy (not
 *            text/plain, too large)
 *   exit 64  a bad call (the usage on standard error)
 *
 * Every rule of the fetch lives here (stsfetch_http.c): HTTPS only, the
 * certificate for mta-sts.<domain>, no redirects, text/plain, at most -m
 * bytes, at most -t milliseconds.  The policy is parsed by the runner
 * (smtp/mta_sts.c).
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "io.h"
#include "stsfetch_http.h"

#define STSFETCH_MAX_DEFAULT 65536L   /* RFC 8461 3.3 suggests 64 KB */
#define STSFETCH_MAX_CEILING 1048576L /* -m at most */
#define STSFETCH_MS_DEFAULT 10000L
#define STSFETCH_MS_CEILING 600000L /* -t at most */
#define STSFETCH_DOMAIN_MAX 253

/* usage - the call, and exit 64 */
static void
usage(void)
{
	fprintf(stderr, "usage: mj_stsfetch [-A cafile] [-c host:port] "
			"[-m bytes] [-t ms] domain\n");
	exit(EX_USAGE);
}

/* number_arg - a number of 1 to max from option c's argument, or usage */
static long
number_arg(int c, const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max) {
		warnx("-%c %s: not a number from 1 to %ld", c, s, max);
		usage();
	}
	return v;
}

/* domain_ok - a host name only: letters, digits, '.', '-', '_', so that
 * nothing in it can change the URL's host or path */
static int
domain_ok(const char *d)
{
	size_t n = strlen(d);

	return n > 0 && n <= STSFETCH_DOMAIN_MAX && d[0] != '.' &&
	       strspn(d, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}

/* fetch - the policy of domain to standard output (exit 0), or why not
 * (exit 1, 2 or 3); buf holds at most max bytes */
static int
fetch(const char *domain, const struct stsfetch_conf *cf, char *buf, size_t max)
{
	char why[512];
	size_t len;
	int rc = 0, r;

	if (stsfetch_http_init() == -1) {
		printf("mj_stsfetch: libcurl cannot start\n");
		return fflush(stdout) == 0 ? 1 : EX_IOERR;
	}
	if ((r = stsfetch_http(domain, cf, buf, max, &len, why, sizeof(why))) !=
	    0) {
		why[strcspn(why, "\r\n")] = '\0';
		printf("%s\n", why);
		rc = fflush(stdout) == 0 ? -r : EX_IOERR; /* 1, 2 or 3 */
	} else if (io_write_all(STDOUT_FILENO, buf, len) == -1)
		rc = EX_IOERR;
	stsfetch_http_cleanup();
	return rc;
}

int
main(int argc, char **argv)
{
	struct stsfetch_conf cf = {"", "", STSFETCH_MS_DEFAULT};
	long max = STSFETCH_MAX_DEFAULT;
	char *buf;
	int c, rc;

	/* Descriptors a runner did not mark close-on-exec are not ours. */
	closefrom(STDERR_FILENO + 1);
	while ((c = getopt(argc, argv, "A:c:m:t:")) != -1) {
		switch (c) {
		case 'A':
			cf.cafile = optarg;
			break;
		case 'c':
			cf.connect_to = optarg;
			break;
		case 'm':
			max = number_arg(c, optarg, STSFETCH_MAX_CEILING);
			break;
		case 't':
			cf.timeout_ms =
			    number_arg(c, optarg, STSFETCH_MS_CEILING);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	if (!domain_ok(argv[optind])) {
		warnx("%s: not a domain name", argv[optind]);
		usage();
	}
	if ((buf = malloc((size_t)max)) == NULL)
		err(EX_OSERR, "malloc");
	rc = fetch(argv[optind], &cf, buf, (size_t)max);
	free(buf);
	return rc;
}
