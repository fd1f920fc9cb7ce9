/*
 * dkim_ossl.c - OpenSSL's reason for a failure, in the words of a DKIM
 * error message; used by the key cache and text preparation
 * (dkim_sign.c) and the signatures of each copy (dkim_copy.c) alike.
 */
#include <openssl/err.h>

#include "dkim_ossl.h"

/* dkim_ossl - OpenSSL's reason for the last failure; the queue is
 * cleared */
const char *
dkim_ossl(void)
{
	unsigned long e = ERR_get_error();

	ERR_clear_error();
	return e != 0 ? ERR_reason_error_string(e) : "unknown error";
}
