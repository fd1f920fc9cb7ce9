/*
 * bounce_read_header.c - header fields that list the failed recipients:
 *   X-Failed-Recipients: a@x, b@y     Exim (every bounce it makes),
 *                                     Google Groups, Mail.ru, GMX
 * Each address is judged by what the report's text says after its first
 * mention (the Exim paragraph under it), or by the whole text when the
 * text never names it (Google Groups).
 */
#include <stdlib.h>
#include <string.h>

#include "bounce_read.h"
#include "cmd_mime.h"
#include "header.h"

#define HEADER_VALUE_MAX 4096
#define HEADER_REASON_MAX 4096

static const struct {
	const char *field, *who;
} header_fields[] = {
    {"X-Failed-Recipients", "X-Failed-Recipients"},
};

/* bounce_read_header - the addresses the failed-recipient fields list */
size_t
bounce_read_header(const char *msg, size_t mlen, const char *p, size_t len,
    struct bounce_found *bf)
{
	char v[HEADER_VALUE_MAX], a[NAME_ADDR_MAX + 1];
	const char *w, *e, *why;
	size_t i, found = 0, k, rlen;

	for (i = 0; i < sizeof(header_fields) / sizeof(header_fields[0]); i++) {
		if (header_value(
			msg, mlen, header_fields[i].field, v, sizeof(v)) == -1)
			continue;
		for (w = v; *w != '\0'; w = e) {
			w += strspn(w, " \t,");
			e = w + strcspn(w, " \t,");
			if ((k = (size_t)(e - w)) == 0 || k > NAME_ADDR_MAX)
				continue;
			memcpy(a, w, k);
			a[k] = '\0';
			why = bounce_read_reason(
			    p, len, a, HEADER_REASON_MAX, &rlen);
			/* never named, or the only one: the whole text
			 * (Gmail puts the reason a paragraph below) */
			if (rlen == 0 || strpbrk(v, " \t,") == NULL)
				why = rlen == 0 ? p : why,
				rlen =
				    (size_t)(p + len - why) < HEADER_REASON_MAX
					? (size_t)(p + len - why)
					: HEADER_REASON_MAX;
			if (bounce_found_add(bf, header_fields[i].who, w, k,
				NULL, why, rlen) != -1)
				found++;
		}
	}
	return found;
}
