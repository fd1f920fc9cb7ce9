/*
 * generate.h - commit mail the runner makes itself (generate.c).
 */
#ifndef MJQ_GENERATE_H
#define MJQ_GENERATE_H

#include <stddef.h>

struct queuerun;
struct qr_msg;

int generate_commit(struct queuerun *q, const struct qr_msg *m,
    const char *kind, const char *to, const char *text, size_t tlen,
    char *final, size_t finallen);

#endif
