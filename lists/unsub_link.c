/*
 * unsub_link.c - read a one-click link back: the query string that
 * unsub_link_make (unsub_token.c) writes,
 *
 *     <url>?l=<list>@<domain>&a=<address>&t=<issued>&s=<mac>
 *
 * percent-encoded, from the CGI's QUERY_STRING or from the
 * List-Unsubscribe field of a copy a complaint returns.  Every field is
 * checked as mj_enqueue checks its arguments (the address as a
 * subscriber, name_addr_ok); whether the MAC is genuine is
 * unsub_token_check's question.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "unsub_link.h"

/* unsub_hexval - a hex digit's value, or -1 */
static int
unsub_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* unsub_decode - percent-decode n bytes into out (NUL-terminated);
 * 0 ok, -1 malformed, too long, or a control byte */
static int
unsub_decode(const char *in, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;
	int hi, lo, c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)in[i];
		if (c == '%') {
			if (i + 2 >= n)
				return -1;
			if ((hi = unsub_hexval((unsigned char)in[i + 1])) < 0 ||
			    (lo = unsub_hexval((unsigned char)in[i + 2])) < 0)
				return -1;
			c = hi << 4 | lo;
			i += 2;
		} else if (c == '+') {
			c = ' ';
		}
		if (c < 0x20 || c == 0x7f || o + 1 >= outlen)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

/* unsub_link_field - the decoded value of key in a query string (or a
 * form body); 0 found, -1 absent, repeated or malformed */
int
unsub_link_field(const char *query, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key);
	const char *p = query, *amp;
	int found = 0;

	while (*p != '\0') {
		amp = p + strcspn(p, "&;");
		if ((size_t)(amp - p) > klen && strncmp(p, key, klen) == 0 &&
		    p[klen] == '=') {
			if (found++ ||
			    unsub_decode(p + klen + 1,
				(size_t)(amp - p - (ptrdiff_t)klen - 1), out,
				outlen) == -1)
				return -1;
		}
		p = *amp ? amp + 1 : amp;
	}
	return found ? 0 : -1;
}

/* unsub_link_parse - the link's fields from the query string; 0 ok, -1 a
 * field missing or unusable */
int
unsub_link_parse(const char *query, struct unsub_link *l)
{
	char whole[NAME_LIST_MAX + NAME_DOMAIN_MAX + 2], t[32], *at, *end;

	memset(l, 0, sizeof(*l));
	if (query == NULL ||
	    unsub_link_field(query, "l", whole, sizeof(whole)) == -1 ||
	    unsub_link_field(query, "a", l->addr, sizeof(l->addr)) == -1 ||
	    unsub_link_field(query, "t", t, sizeof(t)) == -1 ||
	    unsub_link_field(query, "s", l->mac, sizeof(l->mac)) == -1)
		return -1;
	if ((at = strchr(whole, '@')) == NULL)
		return -1;
	*at = '\0';
	if (strlcpy(l->list, whole, sizeof(l->list)) >= sizeof(l->list) ||
	    strlcpy(l->domain, at + 1, sizeof(l->domain)) >=
		sizeof(l->domain) ||
	    name_check_list(l->list) != NULL ||
	    name_check_domain(l->domain) != NULL || !name_addr_ok(l->addr))
		return -1;
	errno = 0;
	l->issued = strtoll(t, &end, 10);
	if (errno != 0 || end == t || *end != '\0' || l->issued < 0)
		return -1;
	return 0;
}

/* unsub_link_of_header - the one-click link among the URIs of a
 * List-Unsubscribe value (<uri>, <uri>...); 0 found, -1 none usable */
int
unsub_link_of_header(const char *value, struct unsub_link *l)
{
	char query[2048];
	const char *p = value, *end, *q;

	while ((p = strchr(p, '<')) != NULL) {
		p++;
		if ((end = strchr(p, '>')) == NULL)
			break;
		q = memchr(p, '?', (size_t)(end - p));
		if (strncasecmp(p, "mailto:", 7) != 0 && q != NULL &&
		    (size_t)(end - q) <= sizeof(query)) {
			memcpy(query, q + 1, (size_t)(end - q - 1));
			query[end - q - 1] = '\0';
			if (unsub_link_parse(query, l) == 0)
				return 0;
		}
		p = end + 1;
	}
	memset(l, 0, sizeof(*l));
	return -1;
}
