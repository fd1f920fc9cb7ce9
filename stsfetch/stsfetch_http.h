/*
 * stsfetch_http.h - the HTTPS fetch of an MTA-STS policy (RFC 8461 3.3)
 * with libcurl: https://mta-sts.<domain>/.well-known/mta-sts.txt.
 */
#ifndef MJQ_STSFETCH_HTTP_H
#define MJQ_STSFETCH_HTTP_H

#include <stddef.h>

/* How to fetch; the strings are the caller's. */
struct stsfetch_conf {
	const char *cafile;	/* "": the system CA store */
	const char *connect_to; /* "": DNS; "host:port": connect there
				   (the name is still what TLS verifies) */
	long timeout_ms;	/* the whole transfer */
};

int stsfetch_http_init(void);
void stsfetch_http_cleanup(void);
int stsfetch_http(const char *domain, const struct stsfetch_conf *, char *buf,
    size_t buflen, size_t *len, char *why, size_t whylen);

#endif
