/*
 * unsub_cgi.c - what the web server hands mj_unsubscribe (RFC 3875): the
 * method, the query string of the link, and a bounded request body.
 *
 * The link's query string is read by lists/unsub_link.c, which checks
 * every field as mj_enqueue checks its arguments, before anything else
 * looks at it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cgi_query.h"
#include "unsub.h"

/* unsub_cgi_method - the request method */
enum unsub_method
unsub_cgi_method(void)
{
	const char *m = getenv("REQUEST_METHOD");

	if (m == NULL)
		return UNSUB_OTHER;
	if (strcmp(m, "GET") == 0)
		return UNSUB_GET;
	if (strcmp(m, "HEAD") == 0)
		return UNSUB_HEAD;
	if (strcmp(m, "POST") == 0)
		return UNSUB_POST;
	return UNSUB_OTHER;
}

/* unsub_cgi_body - read the request body (CONTENT_LENGTH bytes) into
 * buf; 0 ok, 1 larger than size, -1 unreadable or short */
int
unsub_cgi_body(char *buf, size_t size, size_t *len)
{
	const char *cl = getenv("CONTENT_LENGTH");
	long long want;
	char *end;
	ssize_t n;

	*len = 0;
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

/* unsub_cgi_one_click - the body asks for a one-click unsubscribe, as
 * RFC 8058 has mailbox providers send it: List-Unsubscribe=One-Click in
 * a urlencoded form, or as the one field of multipart/form-data */
int
unsub_cgi_one_click(const char *body, size_t len)
{
	const char *ct = getenv("CONTENT_TYPE");
	char value[64];

	const char *p, *v;

	if (ct != NULL && strncasecmp(ct, "multipart/form-data", 19) == 0) {
		/* The part named List-Unsubscribe, its value after the blank
		 * line that ends the part's headers. */
		if ((p = memmem(body, len, "name=\"List-Unsubscribe\"", 23)) ==
			NULL ||
		    (v = memmem(p, len - (size_t)(p - body), "\r\n\r\n", 4)) ==
			NULL)
			return 0;
		v += 4;
		return (size_t)(body + len - v) >= 9 &&
		       strncmp(v, "One-Click", 9) == 0;
	}
	return cgi_query_field(
		   body, "List-Unsubscribe", value, sizeof(value)) == 0 &&
	       strcmp(value, "One-Click") == 0;
}
