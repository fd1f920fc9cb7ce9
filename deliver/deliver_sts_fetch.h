/*
 * deliver_sts_fetch.h - an MTA-STS policy fetched by the helper program
 * mj_stsfetch (stsfetch/), run by the runner's policy thread.
 */
#ifndef MJQ_DELIVER_STS_FETCH_H
#define MJQ_DELIVER_STS_FETCH_H

#include <stddef.h>

#include "delivery_conf.h"

/* Why deliver_sts_fetch_run has no policy (mj_stsfetch's exit 1, 2,
 * 3): not fetched, the server's certificate failed, not a policy. */
enum deliver_sts_fetch_fail {
	DELIVER_STS_FETCH_FAILED = -1,
	DELIVER_STS_FETCH_WEBPKI = -2,
	DELIVER_STS_FETCH_NOT_POLICY = -3
};

int deliver_sts_fetch_find(char *err, size_t errlen);
int deliver_sts_fetch_run(const char *domain, const struct delivery_params *,
    char *buf, size_t buflen, size_t *len, char *why, size_t whylen);

#endif
