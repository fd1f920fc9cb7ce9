/*
 * mj_mxtry - print what the resolver (smtp/mx_*) makes of a nexthop.
 *
 * One line per address to try, in order: "host pref addr port"; or the
 * failure with exit 75 (defer) or 68 (bounce).  With -n N it resolves N
 * times and prints one line of hosts per run, to see the shuffling of
 * equal preferences.
 */
#include <arpa/inet.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "smtp.h"

/* print_target - "host pref addr port" */
static void
print_target(const struct mx_target *t)
{
	char addr[INET6_ADDRSTRLEN];
	const void *a;
	int port;

	if (t->addr.ss_family == AF_INET) {
		a = &((const struct sockaddr_in *)&t->addr)->sin_addr;
		port = ntohs(((const struct sockaddr_in *)&t->addr)->sin_port);
	} else {
		a = &((const struct sockaddr_in6 *)&t->addr)->sin6_addr;
		port =
		    ntohs(((const struct sockaddr_in6 *)&t->addr)->sin6_port);
	}
	inet_ntop(t->addr.ss_family, a, addr, sizeof(addr));
	printf("%s %d %s %d\n", t->host, t->pref, addr, port);
}

/* main - resolve the nexthop once or -n times */
int
main(int argc, char **argv)
{
	const char *server = "";
	struct mx_resolver r;
	struct mx_list l;
	enum mx_status st;
	char why[512];
	int c, port = 25, runs = 1, i;
	size_t k;

	while ((c = getopt(argc, argv, "n:p:s:")) != -1) {
		switch (c) {
		case 'n':
			runs = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 's':
			server = optarg;
			break;
		default:
			fprintf(stderr, "usage: mj_mxtry [-s dns_server] "
					"[-p port] [-n runs] nexthop\n");
			return EX_USAGE;
		}
	}
	if (optind != argc - 1)
		errx(EX_USAGE, "one nexthop expected");
	if (mx_resolver_init(&r, server, why, sizeof(why)) == -1)
		errx(EX_CONFIG, "%s", why);
	for (i = 0; i < runs; i++) {
		if ((st = mx_resolve(&r, argv[optind], port, &l, why,
			 sizeof(why))) != MX_OK) {
			printf("%s: %s\n",
			    st == MX_TEMPFAIL ? "tempfail" : "notfound", why);
			mx_resolver_close(&r);
			return st == MX_TEMPFAIL ? EX_TEMPFAIL : EX_NOHOST;
		}
		for (k = 0; k < l.n; k++)
			if (runs == 1)
				print_target(&l.v[k]);
			else
				printf("%s%s", k ? " " : "", l.v[k].host);
		if (runs > 1)
			printf("\n");
		mx_list_free(&l);
	}
	mx_resolver_close(&r);
	return 0;
}
