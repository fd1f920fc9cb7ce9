/*
 * tlsrpt.h - TLS-RPT (RFC 8460) without the report: the result type of
 * a TLS session (4.3), and the mailto: addresses of the _smtp._tls TXT
 * record of a policy domain (3).  Pure functions but for the session's
 * certificate verdict, so the tests feed them anything.
 */
#ifndef MJQ_TLSRPT_H
#define MJQ_TLSRPT_H

#include <stddef.h>

#include "smtp_session.h"

#define TLSRPT_RUA_MAX 8 /* mailto: addresses used, at most */

/* tlsrpt_result - the result type of s after smtp_tls_start at a
 * level that required a verified peer: NULL for a success, else
 * "starttls-not-supported", "certificate-host-mismatch",
 * "certificate-expired", "certificate-not-trusted" or
 * "validation-failure" */
const char *tlsrpt_result(const struct smtp_session *s);
/* tlsrpt_txt_parse - the mailto: addresses of the TXT records (one a
 * line, as dns_txt gives them) of _smtp._tls.<domain>, one a line into
 * out; their number (https: ones are not counted), or -1 when there is
 * not exactly one valid v=TLSRPTv1 record */
int tlsrpt_txt_parse(const char *txt, char *out, size_t outlen);

#endif
