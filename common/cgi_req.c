/*
 * cgi_req.c - the request a web server hands a CGI program (RFC 3875),
 * read with bounds: the method, a body of at most a given size, and
 * whether the browser says it came from another site.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cgi_req.h"

/* cgi_method - the request method */
enum cgi_method
cgi_method(void)
{
	const char *m = getenv("REQUEST_METHOD");

	if (m == NULL)
		return CGI_OTHER;
	if (strcmp(m, "GET") == 0)
		return CGI_GET;
	if (strcmp(m, "HEAD") == 0)
		return CGI_HEAD;
	if (strcmp(m, "POST") == 0)
		return CGI_POST;
	return CGI_OTHER;
}

/* cgi_body - read the request body into buf */
int
cgi_body(char *buf, size_t size, size_t *len)
{
	const char *cl = getenv("CONTENT_LENGTH");
	long long want;
	char *end;
	ssize_t n;

	*len = 0;
	buf[0] = '\0';
	if (cl == NULL || *cl == '\0')
		return 0;
	errno = 0;
	want = strtoll(cl, &end, 10);
	if (errno != 0 || end == cl || *end != '\0' || want < 0)
		return -1;
	if ((unsigned long long)want >= size)
		return 1;
	while (*len < (size_t)want) {
		n = read(0, buf + *len, (size_t)want - *len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		*len += (size_t)n;
	}
	buf[*len] = '\0';
	return 0;
}

/* cgi_origin_host - the host[:port] of an Origin value, in out */
static int
cgi_origin_host(const char *origin, char *out, size_t outlen)
{
	const char *p;

	if ((p = strstr(origin, "://")) == NULL)
		return -1;
	p += 3;
	if (strcspn(p, "/") != strlen(p))
		return -1;
	if (strlcpy(out, p, outlen) >= outlen)
		return -1;
	return 0;
}

/* cgi_same_origin - a browser names where a form was sent from:
 * Sec-Fetch-Site (anything but same-origin, or none for a request the
 * person made) or else Origin (a host other than HTTP_HOST).  A page
 * sent with "Referrer-Policy: no-referrer" gets "Origin: null" back,
 * which names no site; a request naming none is from no browser's
 * other site, and the form's token decides */
int
cgi_same_origin(void)
{
	const char *origin = getenv("HTTP_ORIGIN");
	const char *host = getenv("HTTP_HOST");
	const char *site = getenv("HTTP_SEC_FETCH_SITE");
	char h[512];

	if (site != NULL && *site != '\0')
		return strcasecmp(site, "same-origin") == 0 ||
		       strcasecmp(site, "none") == 0;
	if (origin == NULL || *origin == '\0' || strcmp(origin, "null") == 0)
		return 1;
	if (host == NULL || cgi_origin_host(origin, h, sizeof(h)) == -1)
		return 0;
	return strcasecmp(h, host) == 0;
}

/* cgi_config - the configuration file to read */
const char *
cgi_config(const char *dflt)
{
	const char *env = getenv("MJQ_CONF");

	if (env != NULL && *env != '\0' && getuid() == geteuid() &&
	    getgid() == getegid())
		return env;
	return dflt;
}

/* cgi_headers - the status line and the page's headers */
void
cgi_headers(int status, const char *reason)
{
	printf("Status: %d %s\r\n"
	       "Content-Type: text/html; charset=utf-8\r\n"
	       "Cache-Control: no-store\r\n"
	       "X-Content-Type-Options: nosniff\r\n"
	       "X-Frame-Options: DENY\r\n"
	       "Content-Security-Policy: default-src 'none'; "
	       "style-src 'unsafe-inline'; form-action 'self'; "
	       "frame-ancestors 'none'; base-uri 'none'\r\n"
	       "Referrer-Policy: no-referrer\r\n"
	       "\r\n",
	    status, reason);
}

/* cgi_page_open - <!DOCTYPE html> to <title>, for a phone's width */
void
cgi_page_open(void)
{
	printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	       "<meta charset=\"utf-8\">\n"
	       "<meta name=\"viewport\" content=\"width=device-width, "
	       "initial-scale=1\">\n<title>");
}
