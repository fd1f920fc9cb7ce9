/*
 * deliver_sts.h - MTA-STS (RFC 8461) for the smtp transport: the policy
 * of a recipient domain as the runners' shared cache holds it
 * (spool_sts.h), fetched by the runner's policy thread, never by a
 * delivery thread.
 */
#ifndef MJQ_DELIVER_STS_H
#define MJQ_DELIVER_STS_H

#include <stddef.h>

#include "delivery_conf.h"
#include "smtp.h"

/* A policy as a delivery uses it: mode MTA_STS_NONE_FOUND for none. */
struct deliver_sts_policy {
	struct mta_sts_policy pol;
	char id[MTA_STS_ID_MAX + 1];
};

int deliver_sts_open(
    const char *spool, const struct delivery_params *, char *, size_t);
void deliver_sts_close(void);
void deliver_sts_get(const struct delivery_params *, const char *domain,
    struct deliver_sts_policy *);

#endif
