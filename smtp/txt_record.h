/*
 * txt_record.h - the tag records of DNS TXT look-ups (txt_record.c) that
 * MTA-STS (RFC 8461 3.1) and TLS-RPT (RFC 8460 3) share: "v=<version>"
 * first, then "; key=value" fields with optional white space, and one
 * such record at most for a name.  No I/O.
 */
#ifndef MJQ_TXT_RECORD_H
#define MJQ_TXT_RECORD_H

#include <stddef.h>

/* txt_record_pick - the one record of txt (dns_txt's form: one a line)
 * that starts with version ("v=STSv1"): 0 with [*rec, *end) the rest of
 * it, -1 when there is none or more than one */
int txt_record_pick(
    const char *txt, const char *version, const char **rec, const char **end);
/* txt_record_field - the next field of [*p, end): 1 with key and value
 * spans (the value's trailing white space cut), 0 at the end, -1 not a
 * field */
int txt_record_field(const char **p, const char *end, const char **key,
    size_t *klen, const char **val, size_t *vlen);

#endif
