/*
 * dkim_ossl.h - OpenSSL's reason for a failure (dkim_ossl.c), for the
 * DKIM files.
 */
#ifndef MJQ_DKIM_OSSL_H
#define MJQ_DKIM_OSSL_H

const char *dkim_ossl(void);

#endif
