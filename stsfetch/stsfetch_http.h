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

/* Why stsfetch_http found no policy: it could not be fetched, the
 * server's certificate failed (RFC 8460's sts-webpki-invalid), or what
 * a 200 brought is no policy (not text/plain, too large). */
enum stsfetch_fail {
	STSFETCH_FAILED = -1,
	STSFETCH_WEBPKI = -2,
	STSFETCH_NOT_POLICY = -3
};

int stsfetch_http_init(void);
void stsfetch_http_cleanup(void);
int stsfetch_http(const char *domain, const struct stsfetch_conf *, char *buf,
    size_t buflen, size_t *len, char *why, size_t whylen);

#endif
