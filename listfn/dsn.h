/*
 * dsn.h - the bounce (dsn.c): one RFC 3464 report per batch of a
 * message's fail log, committed into QUEUE/ as generated mail.
 */
#ifndef MJQ_DSN_H
#define MJQ_DSN_H

#include <stddef.h>
#include <sys/types.h>

struct listfn_env;
struct listfn_msg;

#define FAIL_BATCH_MAX 1000 /* failed recipients named in one report */

/* A failed recipient, as the runner's fail log keeps it. */
struct fail_rec {
	off_t off; /* its line in the state file */
	const char *addr, *dsn, *diag;
};

/* Failed recipients read back from the fail log, FAIL_BATCH_MAX at most. */
struct fail_batch {
	size_t n;
	struct fail_rec rec[FAIL_BATCH_MAX];
	char *line[FAIL_BATCH_MAX]; /* the text the records point into */
};

/* One report names one batch of the fail log. */
struct dsn_part {
	const struct fail_batch *batch; /* its recipients */
	size_t part, parts;		/* 1 of 1, or n of more */
	size_t total;			/* failed recipients in all parts */
	int expired; /* the message outlived its queue lifetime */
};

/* dsn_create - commit the report of one part */
int dsn_create(
    struct listfn_env *env, struct listfn_msg *m, const struct dsn_part *part);

#endif
