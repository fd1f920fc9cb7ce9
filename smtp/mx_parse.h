/*
 * mx_parse.h - DNS answers to MX and A/AAAA queries, parsed without I/O.
 *
 * Pure functions over a raw answer buffer (as res_nquery returns it), so
 * the tests feed canned answers and a fuzzer can feed anything.
 */
#ifndef MJQ_MX_PARSE_H
#define MJQ_MX_PARSE_H

#include <sys/socket.h>
#include <stddef.h>

#define MX_NAME_MAX 256

/* One MX record: the exchange and its preference. */
struct mx_host {
	char name[MX_NAME_MAX]; /* "" for the null MX "." (RFC 7505) */
	int pref;
};

/* One address to try, with the MX host it belongs to. */
struct mx_target {
	char host[MX_NAME_MAX];
	int pref; /* the MX preference; 0 when there was no MX */
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

/* The ordered list of addresses to try. */
struct mx_list {
	struct mx_target *v;
	size_t n, cap;
	int secure; /* the names came from authenticated DNS (the AD bit
		       of the MX answer) or from the configuration */
};

int mx_parse_mx(const unsigned char *, int, struct mx_host **, size_t *);
int mx_parse_addrs(
    const unsigned char *, int, const char *, int, int, struct mx_list *);
int mx_parse_literal(const char *, int, struct mx_list *);
void mx_list_free(struct mx_list *);

#endif
