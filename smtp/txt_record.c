/*
 * txt_record.c - "v=<version>; key=value; ..." TXT records, as MTA-STS
 * and TLS-RPT write them: which record is the one, and its fields.
 * Records that do not start with the version tag (followed by ';',
 * white space or the end) are passed over; unless exactly one is left
 * the name has none (RFC 8461 3.1, RFC 8460 3).
 */
#include <string.h>

#include "txt_record.h"

/* txt_record_wsp - space or tab */
static int
txt_record_wsp(int c)
{
	return c == ' ' || c == '\t';
}

/* txt_record_pick - the one record of txt that starts with version */
int
txt_record_pick(
    const char *txt, const char *version, const char **rec, const char **end)
{
	size_t vlen = strlen(version), len;
	const char *r, *nl;
	int found = 0;

	for (r = txt; *r != '\0'; r = *nl ? nl + 1 : nl) {
		nl = r + strcspn(r, "\n");
		len = (size_t)(nl - r);
		if (len < vlen || strncmp(r, version, vlen) != 0 ||
		    (len > vlen && r[vlen] != ';' && !txt_record_wsp(r[vlen])))
			continue;
		if (found++ == 0)
			*rec = r + vlen, *end = nl;
	}
	return found == 1 ? 0 : -1;
}

/* txt_record_field - the next "; key=value" of [*p, end) */
int
txt_record_field(const char **p, const char *end, const char **key,
    size_t *klen, const char **val, size_t *vlen)
{
	const char *r = *p, *f, *eq, *e;

	while (r < end && txt_record_wsp(*r))
		r++;
	if (r == end)
		return 0;
	if (*r++ != ';')
		return -1;
	while (r < end && txt_record_wsp(*r))
		r++;
	if (r == end)
		return 0; /* a trailing delimiter */
	for (f = r; r < end && *r != ';'; r++)
		continue;
	if ((eq = memchr(f, '=', (size_t)(r - f))) == NULL || eq == f)
		return -1;
	for (e = r; e > eq + 1 && txt_record_wsp(e[-1]); e--)
		continue;
	*key = f, *klen = (size_t)(eq - f);
	*val = eq + 1, *vlen = (size_t)(e - eq - 1);
	*p = r;
	return 1;
}
