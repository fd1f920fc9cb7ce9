/*
 * mta_sts_fetch.h - the HTTPS fetch of an MTA-STS policy (RFC 8461 3.3)
 * with libcurl: https://mta-sts.<domain>/.well-known/mta-sts.txt.
 */
#ifndef MJQ_MTA_STS_FETCH_H
#define MJQ_MTA_STS_FETCH_H

#include <stddef.h>

/* How to fetch; the strings are the caller's. */
struct mta_sts_fetch_conf {
	const char *cafile;	/* "": the system CA store */
	const char *connect_to; /* "": DNS; "host:port": connect there
				   (the name is still what TLS verifies) */
	long timeout_ms;	/* the whole transfer */
};

int mta_sts_fetch_init(void);
int mta_sts_fetch(const char *domain, const struct mta_sts_fetch_conf *,
    char *buf, size_t buflen, size_t *len, char *why, size_t whylen);

#endif
