/*
 * tlsrpt.c - TLS-RPT (RFC 8460) result types and TXT records, no I/O.
 *
 * A session's result is read from what smtp_tls.c noted of it: no TLS
 * at all is starttls-not-supported (not offered, or refused); the first
 * certificate error of the chain check names the failure; a handshake
 * that failed without one, or a DANE mismatch, is validation-failure,
 * the RFC's word for the rest.
 *
 * The TXT record (3): "v=TLSRPTv1;rua=mailto:a@x,https://...", fields
 * separated by ';' with optional white space; of the rua URIs only the
 * mailto: ones are used (the https: POST is not done).  Records that do
 * not start with v=TLSRPTv1 are passed over; unless exactly one is left,
 * the domain has no TLS-RPT (3).
 */
#include <openssl/x509_vfy.h>
#include <string.h>

#include "names.h"
#include "smtp_tls.h"
#include "tlsrpt.h"

/* tlsrpt_result - the RFC 8460 4.3 result type of s; NULL: success */
const char *
tlsrpt_result(const struct smtp_session *s)
{
	if (s->tls == NULL)
		return "starttls-not-supported";
	switch (smtp_tls_verify_error(s)) {
	case 0:
		break;
	case X509_V_ERR_HOSTNAME_MISMATCH:
		return "certificate-host-mismatch";
	case X509_V_ERR_CERT_HAS_EXPIRED:
	case X509_V_ERR_CERT_NOT_YET_VALID:
		return "certificate-expired";
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
	case X509_V_ERR_CERT_UNTRUSTED:
	case X509_V_ERR_CERT_REVOKED:
		return "certificate-not-trusted";
	default:
		return "validation-failure";
	}
	switch (s->tls_state) {
	case SMTP_TLS_VERIFIED:
		return NULL;
	case SMTP_TLS_TRUSTED:
		return "certificate-host-mismatch";
	case SMTP_TLS_ANONYMOUS:
	case SMTP_TLS_UNTRUSTED:
		return "certificate-not-trusted";
	default:
		return "validation-failure"; /* the handshake failed */
	}
}

/* tlsrpt_wsp - space or tab */
static int
tlsrpt_wsp(int c)
{
	return c == ' ' || c == '\t';
}

/* tlsrpt_rua - the mailto: URIs of a rua value (n bytes) into out, one
 * a line; their number, or -1 */
static int
tlsrpt_rua(const char *v, size_t n, char *out, size_t outlen)
{
	const char *end = v + n, *u, *e;
	char addr[NAME_ADDR_MAX + 1];
	size_t len, used = strlen(out);
	int count = 0;

	for (u = v; u < end; u = e + 1) {
		if ((e = memchr(u, ',', (size_t)(end - u))) == NULL)
			e = end;
		while (u < e && tlsrpt_wsp(*u))
			u++;
		if ((size_t)(e - u) < 8 || strncmp(u, "mailto:", 7) != 0)
			continue; /* https:, or something else */
		len = strcspn(u + 7, "? \t");
		if (len > (size_t)(e - u - 7))
			len = (size_t)(e - u - 7);
		if (len >= sizeof(addr) || count == TLSRPT_RUA_MAX)
			continue;
		memcpy(addr, u + 7, len);
		addr[len] = '\0';
		if (!name_addr_ok(addr) || used + len + 2 > outlen)
			continue;
		memcpy(out + used, addr, len);
		out[used + len] = '\n';
		out[used += len + 1] = '\0';
		count++;
	}
	return count;
}

/* tlsrpt_txt_one - one record after "v=TLSRPTv1": its rua; -1 invalid */
static int
tlsrpt_txt_one(const char *r, const char *end, char *out, size_t outlen)
{
	const char *f, *eq;
	int have = -1;

	while (r < end) {
		while (r < end && tlsrpt_wsp(*r))
			r++;
		if (r == end)
			break;
		if (*r++ != ';')
			return -1;
		while (r < end && tlsrpt_wsp(*r))
			r++;
		if (r == end)
			break; /* a trailing delimiter */
		for (f = r; r < end && *r != ';'; r++)
			continue;
		if ((eq = memchr(f, '=', (size_t)(r - f))) == NULL || eq == f)
			return -1;
		if (eq - f == 3 && strncmp(f, "rua", 3) == 0 && have == -1)
			have = tlsrpt_rua(
			    eq + 1, (size_t)(r - eq - 1), out, outlen);
	}
	return have;
}

/* tlsrpt_txt_parse - the rua mailto: addresses of the one record */
int
tlsrpt_txt_parse(const char *txt, char *out, size_t outlen)
{
	const char *r = txt, *nl;
	int found = 0, n = -1;
	size_t len;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	for (; *r != '\0'; r = *nl ? nl + 1 : nl) {
		nl = r + strcspn(r, "\n");
		len = (size_t)(nl - r);
		if (len < 10 || strncmp(r, "v=TLSRPTv1", 10) != 0 ||
		    (len > 10 && r[10] != ';' && !tlsrpt_wsp(r[10])))
			continue;
		if (found++ == 0)
			n = tlsrpt_txt_one(r + 10, nl, out, outlen);
	}
	if (found != 1 || n < 0) {
		out[0] = '\0';
		return -1;
	}
	return n;
}
