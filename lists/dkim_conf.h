/*
 * dkim_conf.h - how a domain's mail is signed (dkim_conf.c).
 */
#ifndef MJQ_DKIM_CONF_H
#define MJQ_DKIM_CONF_H

#include <sys/stat.h>
#include <limits.h>
#include <stddef.h>

#include "lists_settings.h"
#include "settings.h"

#define DKIM_RSA_SELECTORS_MAX 2 /* the current key and the next one */
#define DKIM_SELECTOR_MAX 63	 /* one DNS label */
#define DKIM_CONF_KEY_MAX 16384	 /* bytes of a PEM key; RSA 4096 fits */

struct dkim_conf {
	int sign;	    /* 0: the domain's mail goes out unsigned */
	char dir[PATH_MAX]; /* the domain's DKIM directory: keys, config */
	char selectors[128];
	char ed25519_selector[DKIM_SELECTOR_MAX + 1];
	/* selectors, split: one rsa-sha256 signature each */
	char rsa[DKIM_RSA_SELECTORS_MAX][DKIM_SELECTOR_MAX + 1];
	int nrsa;
};

int dkim_conf_load(const struct settings *s, const struct lists_settings *ls,
    const char *domain, struct dkim_conf *dc, char *err, size_t errlen);
int dkim_conf_key_open(const struct dkim_conf *dc, const char *selector,
    char *path, size_t pathlen, struct stat *sb, char *err, size_t errlen);
int dkim_conf_check(const struct dkim_conf *dc, char *err, size_t errlen);

#endif
