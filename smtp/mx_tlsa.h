/*
 * mx_tlsa.h - the TLSA records of an SMTP server (RFC 7672, DANE for
 * SMTP): "_port._tcp.host", trusted only when the answer is authenticated
 * (the AD bit set by a validating resolver the operator trusts, as
 * Postfix's smtp_dns_support_level = dnssec).
 */
#ifndef MJQ_MX_TLSA_H
#define MJQ_MX_TLSA_H

#include <stddef.h>

#include "mx_resolve.h"

#define MX_TLSA_DATA_MAX 512 /* digests are 32 or 64 bytes; SPKI fits */

/* One TLSA record: certificate usage, selector, matching type, data. */
struct mx_tlsa {
	unsigned char usage, selector, mtype;
	unsigned char data[MX_TLSA_DATA_MAX];
	size_t len;
};

struct mx_tlsa_list {
	struct mx_tlsa *v;
	size_t n;
	int secure; /* the answer was authenticated (AD) */
};

int mx_parse_tlsa(const unsigned char *, int, struct mx_tlsa_list *);
enum mx_status mx_resolve_tlsa(struct mx_resolver *, const char *, int,
    struct mx_tlsa_list *, char *, size_t);
void mx_tlsa_free(struct mx_tlsa_list *);

#endif
