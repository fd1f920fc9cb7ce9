/*
 * generate.h - commit mail the runner makes itself (generate.c).
 */
#ifndef MJQ_GENERATE_H
#define MJQ_GENERATE_H

#include <stddef.h>

struct listfn_env;
struct listfn_msg;

int generate_commit(struct listfn_env *env, const struct listfn_msg *m,
    const char *kind, const char *to, const char *text, size_t tlen,
    char *final, size_t finallen);
int generate_commit_from(struct listfn_env *env, const struct listfn_msg *m,
    const char *kind, const char *sender, const char *to, const char *text,
    size_t tlen, char *final, size_t finallen);

#endif
