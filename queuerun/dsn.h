/*
 * dsn.h - the bounce (dsn.c): one RFC 3464 report per batch of a
 * message's fail log, committed into QUEUE/ as generated mail.
 */
#ifndef MJQ_DSN_H
#define MJQ_DSN_H

#include <stddef.h>

#include "fail_log.h"

struct queuerun;
struct qr_msg;

/* One report names one batch of the fail log. */
struct dsn_part {
	const struct fail_batch *batch; /* its recipients */
	size_t part, parts;		/* 1 of 1, or n of more */
	size_t total;			/* failed recipients in all parts */
	int expired; /* the message outlived its queue lifetime */
};

/* dsn_create - commit the report of one part */
int dsn_create(
    struct queuerun *q, struct qr_msg *m, const struct dsn_part *part);

#endif
