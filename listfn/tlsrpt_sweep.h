/*
 * tlsrpt_sweep.h - the daily TLS-RPT reports (RFC 8460) of the sessions the
 * delivery threads recorded (tlsrpt_sweep.c), swept by the step loop beside
 * the digests.
 */
#ifndef MJQ_TLSRPT_SWEEP_H
#define MJQ_TLSRPT_SWEEP_H

#include <stddef.h>

struct listfn_env;

/* tlsrpt_check - the [tlsrpt] section is usable: 0, or -1 with why */
int tlsrpt_check(const struct listfn_env *env, char *why, size_t whylen);
/* tlsrpt_sweep - the reports of every finished day with records, once
 * per policy domain that asks for them, queued; the number queued */
int tlsrpt_sweep(struct listfn_env *env);

#endif
