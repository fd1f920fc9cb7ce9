/*
 * dkim_sign.h - DKIM signatures of a message text (dkim_sign.c), with
 * keys parsed once per runner.
 */
#ifndef MJQ_DKIM_SIGN_H
#define MJQ_DKIM_SIGN_H

#include <stddef.h>

#include "dkim_conf.h"

/* A body hash in base64, with its NUL (SHA-256 at most 64 bytes). */
#define DKIM_BH_MAX 96

struct dkim_signer;
struct dkim_prep;

struct dkim_signer *dkim_sign_open(char *err, size_t errlen);
void dkim_sign_close(struct dkim_signer *ds);
int dkim_sign_prepare(struct dkim_signer *ds, const struct dkim_conf *dc,
    const char *domain, const char *text, size_t len, struct dkim_prep **out,
    char *err, size_t errlen);
void dkim_prep_free(struct dkim_prep *p);
int dkim_prep_bh(
    const struct dkim_prep *p, const char *body, size_t len, char *out);
int dkim_sign_text(struct dkim_signer *ds, const struct dkim_conf *dc,
    const char *domain, const char *text, size_t len, char **sig,
    size_t *siglen, char *err, size_t errlen);

#endif
