/*
 * unsub_cgi.c - the one-click body that mj_unsubscribe reads (the
 * method and the body itself are read by common/cgi_req.c).
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
