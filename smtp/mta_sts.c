/*
 * mta_sts.c - MTA-STS (RFC 8461) parsing and matching, no I/O.
 *
 * The policy file (3.2) is lines of "key: value", ended by LF or CRLF;
 * version (STSv1), mode and max_age must be there, mx at least once
 * unless mode is none.  Of a key given twice the first counts, except mx
 * which adds a pattern each time.  A key is the ABNF's
 * sts-policy-ext-name: a letter or digit, then up to 31 letters, digits,
 * "_", "-" or "."; the four registered ones are matched exactly (case
 * counts), any other is an extension and ignored, as the RFC asks, once
 * its value is an sts-policy-ext-value (UTF-8 without control
 * characters, not empty).  Anything else (a line without a colon, a
 * blank before it, a bad value, a NUL, a pattern that is no host name)
 * makes the whole policy invalid: a sender must not guess what a damaged
 * policy meant.  Blanks before a key and empty lines, which the ABNF
 * does not have, are passed over: they change no meaning.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mta_sts.h"
#include "txt_record.h"
#include "utf8.h"

const char *const mta_sts_mode_names[4] = {"-", "enforce", "testing", "none"};

/* mta_sts_wsp - space or tab */
static int
mta_sts_wsp(int c)
{
	return c == ' ' || c == '\t';
}

/* mta_sts_hostname - is p a host name (letters, digits, hyphens, dots
 * between labels of 1 to 63), with an optional leading "*." when wild */
static int
mta_sts_hostname(const char *p, int wild)
{
	size_t label = 0;

	if (wild && strncmp(p, "*.", 2) == 0)
		p += 2;
	if (*p == '\0')
		return 0;
	for (; *p != '\0'; p++) {
		if (*p == '.') {
			if (label == 0)
				return 0;
			label = 0;
		} else if (isalnum((unsigned char)*p) || *p == '-') {
			if (++label > 63)
				return 0;
		} else
			return 0;
	}
	return label > 0;
}

/* mta_sts_key - is key an sts-policy-ext-name (3.2)? */
static int
mta_sts_key(const char *key)
{
	size_t n;

	if (!isalnum((unsigned char)key[0]))
		return 0;
	n = strspn(key + 1, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.");
	return n <= 31 && key[1 + n] == '\0';
}

/* mta_sts_value - check a trimmed value against sts-policy-ext-value's
 * characters: printable ASCII, spaces, UTF-8 past ASCII; 0, or -1 with
 * why */
static int
mta_sts_value(const char *val, char *why, size_t whylen)
{
	const unsigned char *p = (const unsigned char *)val;
	int bad;

	while (*p != '\0') {
		if (*p < 0x20 || *p == 0x7f) {
			snprintf(why, whylen, "control character in a value");
			return -1;
		}
		if (*p < 0x80) {
			p++;
			continue;
		}
		(void)utf8_next(&p, &bad);
		if (bad) {
			snprintf(why, whylen, "a value is not UTF-8");
			return -1;
		}
	}
	return 0;
}

/* mta_sts_field - apply one "key: value"; seen[] marks first fields */
static int
mta_sts_field(const char *key, const char *val, struct mta_sts_policy *p,
    int seen[3], char *why, size_t whylen)
{
	static const char *const once[3] = {"version", "mode", "max_age"};
	char *end;
	int i;

	if (strcmp(key, "mx") == 0) {
		if (p->nmx == MTA_STS_MX_MAX) {
			snprintf(why, whylen, "more than %d mx patterns",
			    MTA_STS_MX_MAX);
			return -1;
		}
		if (strlen(val) >= MTA_STS_NAME_MAX ||
		    !mta_sts_hostname(val, 1)) {
			snprintf(why, whylen, "bad mx pattern");
			return -1;
		}
		(void)strlcpy(p->mx[p->nmx++], val, MTA_STS_NAME_MAX);
		return 0;
	}
	for (i = 0; i < 3 && strcmp(key, once[i]) != 0; i++)
		continue;
	if (i == 3 && *val == '\0') {
		snprintf(
		    why, whylen, "extension field %s without a value", key);
		return -1;
	}
	if (i == 3 || seen[i]++)
		return 0; /* an extension, or not the first: ignored */
	if (i == 0 && strcmp(val, "STSv1") != 0) {
		snprintf(why, whylen, "version is not STSv1");
		return -1;
	}
	if (i == 1) {
		for (p->mode = MTA_STS_ENFORCE; p->mode <= MTA_STS_NONE;
		     p->mode++)
			if (strcmp(val, mta_sts_mode_names[p->mode]) == 0)
				return 0;
		snprintf(why, whylen, "bad mode");
		return -1;
	}
	if (i == 2) {
		if (strlen(val) > 10 || !isdigit((unsigned char)val[0]) ||
		    strspn(val, "0123456789") != strlen(val)) {
			snprintf(why, whylen, "bad max_age");
			return -1;
		}
		p->max_age = strtol(val, &end, 10);
		if (p->max_age > MTA_STS_MAX_AGE)
			p->max_age = MTA_STS_MAX_AGE;
	}
	return 0;
}

/* mta_sts_line - split one line into key and value (trimmed) and
 * apply it; empty lines are passed over */
static int
mta_sts_line(
    char *line, struct mta_sts_policy *p, int seen[3], char *why, size_t whylen)
{
	char *colon, *val, *end;

	while (mta_sts_wsp(*line))
		line++;
	if (*line == '\0')
		return 0;
	if ((colon = strchr(line, ':')) == NULL || colon == line) {
		snprintf(why, whylen, "a line is not key: value");
		return -1;
	}
	*colon = '\0';
	if (!mta_sts_key(line)) {
		snprintf(why, whylen, "bad key");
		return -1;
	}
	for (val = colon + 1; mta_sts_wsp(*val); val++)
		continue;
	for (end = val + strlen(val); end > val && mta_sts_wsp(end[-1]);)
		*--end = '\0';
	if (mta_sts_value(val, why, whylen) == -1)
		return -1;
	return mta_sts_field(line, val, p, seen, why, whylen);
}

/* mta_sts_policy_parse - a policy file of len bytes into p; 0, or -1
 * with why */
int
mta_sts_policy_parse(const char *text, size_t len, struct mta_sts_policy *p,
    char *why, size_t whylen)
{
	int seen[3] = {0, 0, 0};
	size_t i = 0, n;
	char one[1024];

	memset(p, 0, sizeof(*p));
	if (len > MTA_STS_POLICY_MAX) {
		snprintf(why, whylen, "policy larger than %d bytes",
		    MTA_STS_POLICY_MAX);
		return -1;
	}
	if (memchr(text, '\0', len) != NULL) {
		snprintf(why, whylen, "NUL in the policy");
		return -1;
	}
	while (i < len) {
		for (n = 0; i + n < len && text[i + n] != '\n'; n++)
			continue;
		if (n > 0 && text[i + n - 1] == '\r')
			n--;
		if (n >= sizeof(one)) {
			snprintf(why, whylen, "line too long");
			return -1;
		}
		memcpy(one, text + i, n);
		one[n] = '\0';
		if (mta_sts_line(one, p, seen, why, whylen) == -1)
			return -1;
		while (i < len && text[i] != '\n')
			i++;
		i++;
	}
	if (!seen[0] || !seen[1] || !seen[2]) {
		snprintf(why, whylen, "%s missing",
		    !seen[0]   ? "version"
		    : !seen[1] ? "mode"
			       : "max_age");
		return -1;
	}
	if (p->mode != MTA_STS_NONE && p->nmx == 0) {
		snprintf(why, whylen, "no mx pattern");
		return -1;
	}
	return 0;
}

/* mta_sts_txt_one - the fields of the record [r, end): its id; -1 when
 * it is not valid */
static int
mta_sts_txt_one(const char *r, const char *end, char *id, size_t idlen)
{
	const char *key, *val;
	size_t klen, vlen, i;
	int have = 0, k;

	while ((k = txt_record_field(&r, end, &key, &klen, &val, &vlen)) == 1) {
		if (klen != 2 || strncmp(key, "id", 2) != 0 || have)
			continue;
		if (vlen < 1 || vlen > MTA_STS_ID_MAX || vlen >= idlen)
			return -1;
		for (i = 0; i < vlen; i++)
			if (!isalnum((unsigned char)val[i]))
				return -1;
		memcpy(id, val, vlen);
		id[vlen] = '\0';
		have = 1;
	}
	return k == 0 && have ? 0 : -1;
}

/* mta_sts_txt_parse - the id of the TXT records of _mta-sts.<domain>
 * (dns_txt's form: one record a line); records that do not start with
 * v=STSv1 are passed over, and unless exactly one is left and valid
 * there is no policy (3.1): -1 */
int
mta_sts_txt_parse(const char *txt, char *id, size_t idlen)
{
	const char *r, *end;

	id[0] = '\0';
	if (txt_record_pick(txt, "v=STSv1", &r, &end) == -1 ||
	    mta_sts_txt_one(r, end, id, idlen) == -1) {
		id[0] = '\0';
		return -1;
	}
	return 0;
}

/* mta_sts_mx_match - does the MX host name match one mx: pattern?  A
 * leading "*." stands for exactly one label (4.1): "*.example.com"
 * matches "mx.example.com", not "example.com" nor "a.b.example.com".
 * Case does not matter, nor a trailing dot on the host. */
int
mta_sts_mx_match(const char *pattern, const char *host)
{
	size_t hlen = strlen(host), plen;
	const char *dot;

	if (hlen > 0 && host[hlen - 1] == '.')
		hlen--;
	if (strncmp(pattern, "*.", 2) == 0) {
		if ((dot = memchr(host, '.', hlen)) == NULL || dot == host)
			return 0;
		pattern += 2;
		hlen -= (size_t)(dot + 1 - host);
		host = dot + 1;
	}
	plen = strlen(pattern);
	return plen == hlen && plen > 0 &&
	       strncasecmp(pattern, host, hlen) == 0;
}

/* mta_sts_mx_allowed - does host match any of the policy's patterns? */
int
mta_sts_mx_allowed(const struct mta_sts_policy *p, const char *host)
{
	size_t i;

	for (i = 0; i < p->nmx; i++)
		if (mta_sts_mx_match(p->mx[i], host))
			return 1;
	return 0;
}
