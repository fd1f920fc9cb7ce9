/*
 * stsfetch_http.c - an MTA-STS policy over HTTPS with libcurl (RFC 8461
 * 3.3): HTTPS only, the server's certificate verified for
 * mta-sts.<domain> against the system CA store or a CAfile, redirects
 * refused (not followed, and a 3xx is a failure), the body bounded by the
 * caller's buffer (mj_stsfetch -m: the transfer is cut past it), the
 * whole transfer bounded in time, status 200 and a media type of
 * text/plain required.  No proxy, no cookies, no other protocol.
 *
 * One easy handle per fetch, and one fetch per mj_stsfetch process.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "stsfetch_http.h"

/* The body as it comes: cut off when it does not fit. */
struct stsfetch_body {
	char *buf;
	size_t cap, len;
	int over;
};

/* stsfetch_http_init - libcurl's global set-up, once, before any thread
 * fetches; -1 when it fails */
int
stsfetch_http_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

/* stsfetch_http_cleanup - libcurl's global clean-up, once, at the end */
void
stsfetch_http_cleanup(void)
{
	curl_global_cleanup();
}

/* stsfetch_http_write - libcurl's write callback: keep what fits, stop
 * the transfer when the body is too large */
static size_t
stsfetch_http_write(char *p, size_t size, size_t n, void *arg)
{
	struct stsfetch_body *b = arg;

	n *= size;
	if (n > b->cap - b->len) {
		b->over = 1;
		return 0; /* makes libcurl fail with CURLE_WRITE_ERROR */
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	return n;
}

/* stsfetch_http_check - status 200 and text/plain, after the transfer;
 * 0, or an enum stsfetch_fail */
static int
stsfetch_http_check(CURL *h, char *why, size_t whylen)
{
	const char *ct = NULL;
	long code = 0;
	size_t n;

	(void)curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 300 && code < 400) {
		snprintf(why, whylen, "HTTP %ld: redirect refused", code);
		return -1;
	}
	if (code != 200) {
		snprintf(why, whylen, "HTTP status %ld", code);
		return -1;
	}
	(void)curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct);
	n = strlen("text/plain");
	if (ct == NULL || strncasecmp(ct, "text/plain", n) != 0 ||
	    (ct[n] != '\0' && ct[n] != ';' && ct[n] != ' ')) {
		snprintf(why, whylen, "media type %s, not text/plain",
		    ct != NULL ? ct : "missing");
		return STSFETCH_NOT_POLICY;
	}
	return 0;
}

/* stsfetch_http_setup - the options of one fetch */
static int
stsfetch_http_setup(CURL *h, const char *url, const struct stsfetch_conf *cf,
    struct curl_slist *to, struct stsfetch_body *b, char *err)
{
	int bad = 0;

	bad |= curl_easy_setopt(h, CURLOPT_URL, url) != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https") != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L) != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_PROXY, "") != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |=
	    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, cf->timeout_ms) != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE,
		   (curl_off_t)b->cap) != CURLE_OK;
	bad |= curl_easy_setopt(
		   h, CURLOPT_WRITEFUNCTION, stsfetch_http_write) != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_WRITEDATA, b) != CURLE_OK;
	bad |= curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err) != CURLE_OK;
	bad |=
	    curl_easy_setopt(h, CURLOPT_USERAGENT, "mjq (MTA-STS)") != CURLE_OK;
	if (cf->cafile[0] != '\0')
		bad |=
		    curl_easy_setopt(h, CURLOPT_CAINFO, cf->cafile) != CURLE_OK;
	if (to != NULL)
		bad |= curl_easy_setopt(h, CURLOPT_CONNECT_TO, to) != CURLE_OK;
	return bad ? -1 : 0;
}

/* stsfetch_http_failed - why curl_easy_perform failed, and its kind */
static int
stsfetch_http_failed(CURLcode rc, const struct stsfetch_body *b,
    const char *url, const char *err, char *why, size_t whylen)
{
	int over = b->over || rc == CURLE_FILESIZE_EXCEEDED;

	snprintf(why, whylen, "%s: %s", url,
	    over     ? "policy too large"
	    : err[0] ? err
		     : curl_easy_strerror(rc));
	if (over)
		return STSFETCH_NOT_POLICY;
	/* The server's chain or name: the CAfile that will not load is
	 * ours (CURLE_SSL_CACERT_BADFILE), not the server's. */
	return rc == CURLE_PEER_FAILED_VERIFICATION ? STSFETCH_WEBPKI
						    : STSFETCH_FAILED;
}

/* stsfetch_http - the policy of domain into buf (len bytes); 0, or an
 * enum stsfetch_fail with why */
int
stsfetch_http(const char *domain, const struct stsfetch_conf *cf, char *buf,
    size_t buflen, size_t *len, char *why, size_t whylen)
{
	struct stsfetch_body b = {buf, buflen, 0, 0};
	char url[400], to[400], err[CURL_ERROR_SIZE] = "";
	struct curl_slist *tol = NULL;
	CURLcode rc;
	CURL *h;
	int r = -1;

	*len = 0;
	if ((size_t)snprintf(url, sizeof(url),
		"https://mta-sts.%s/.well-known/mta-sts.txt",
		domain) >= sizeof(url)) {
		snprintf(why, whylen, "domain name too long");
		return -1;
	}
	if (cf->connect_to[0] != '\0' &&
	    ((size_t)snprintf(to, sizeof(to), "::%s", cf->connect_to) >=
		    sizeof(to) ||
		(tol = curl_slist_append(NULL, to)) == NULL)) {
		snprintf(why, whylen, "bad connect_to");
		return -1;
	}
	if ((h = curl_easy_init()) == NULL) {
		snprintf(why, whylen, "cannot make a libcurl handle");
		curl_slist_free_all(tol);
		return -1;
	}
	if (stsfetch_http_setup(h, url, cf, tol, &b, err) == -1)
		snprintf(why, whylen, "cannot set libcurl's options");
	else if ((rc = curl_easy_perform(h)) != CURLE_OK)
		r = stsfetch_http_failed(rc, &b, url, err, why, whylen);
	else if ((r = stsfetch_http_check(h, why, whylen)) == 0)
		*len = b.len;
	curl_easy_cleanup(h);
	curl_slist_free_all(tol);
	return r;
}
