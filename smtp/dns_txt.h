/*
 * dns_txt.h - TXT records of a name (dns_txt.c), through the runner's
 * resolver (mx_resolve.h: dns_server or resolv.conf).
 */
#ifndef MJQ_DNS_TXT_H
#define MJQ_DNS_TXT_H

#include <stddef.h>

#include "mx_resolve.h"

enum mx_status dns_txt(struct mx_resolver *r, const char *name, char *out,
    size_t outlen, unsigned *ttl);

#endif
