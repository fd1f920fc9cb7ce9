/*
 * tlsrpt.c - TLS-RPT (RFC 8460) result types and TXT records, no I/O.
 *
 * A session's result is read from what smtp_tls_verify.c noted of it: no TLS
 * at all is starttls-not-supported (not offered, or refused); TLSA
 * records of which none was usable (DANE-TA or DANE-EE that OpenSSL
 * takes), so that TLS went on at may, tlsa-invalid; the first
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
#include "txt_record.h"

/* tlsrpt_result - the RFC 8460 4.3 result type of s; NULL: success */
const char *
tlsrpt_result(const struct smtp_session *s)
{
	if (s->tls == NULL)
		return "starttls-not-supported";
	if (smtp_tls_dane_unusable(s))
		return "tlsa-invalid";
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

/* tlsrpt_rua - the mailto: URIs of a rua value (n bytes) into out, one
 * a line; their number */
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
		while (u < e && (*u == ' ' || *u == '\t'))
			u++;
		if ((size_t)(e - u) < 8 || strncmp(u, "mailto:", 7) != 0)
			continue; /* https:, or something else */
		len = strcspn(u + 7, "? \t,");
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

/* tlsrpt_txt_parse - the rua mailto: addresses of the one record */
int
tlsrpt_txt_parse(const char *txt, char *out, size_t outlen)
{
	const char *r, *end, *key, *val;
	size_t klen, vlen;
	int n = -1, k;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	if (txt_record_pick(txt, "v=TLSRPTv1", &r, &end) == -1)
		return -1;
	while ((k = txt_record_field(&r, end, &key, &klen, &val, &vlen)) == 1)
		if (klen == 3 && strncmp(key, "rua", 3) == 0 && n == -1)
			n = tlsrpt_rua(val, vlen, out, outlen);
	if (k == -1 || n == -1) {
		out[0] = '\0';
		return -1;
	}
	return n;
}
