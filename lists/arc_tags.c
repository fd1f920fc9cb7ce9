/*
 * arc_tags.c - the tag lists of ARC header fields (RFC 6376 3.2, as
 * RFC 8617 4.1 uses them): which ARC field a field is, the value of a
 * tag, the instance, and a field with its signature left out, as it is
 * hashed.  Every input is a header field as it arrived: bounded by its
 * length, never by a NUL.
 */
#include <string.h>
#include <strings.h>

#include "arc.h"

#define ARC_WSP(c) ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n')

/* arc_kind - which ARC field a field named by namelen bytes at p is */
enum arc_kind
arc_kind(const char *p, size_t namelen)
{
	static const struct {
		const char *name;
		enum arc_kind kind;
	} names[] = {{"arc-authentication-results", ARC_AAR},
	    {"arc-message-signature", ARC_AMS}, {"arc-seal", ARC_AS}};
	size_t i;

	while (namelen > 0 && (p[namelen - 1] == ' ' || p[namelen - 1] == '\t'))
		namelen--;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == namelen &&
		    strncasecmp(names[i].name, p, namelen) == 0)
			return names[i].kind;
	return ARC_NOT;
}

/* arc_tag - the value of tag name in the tag list v (n bytes), without
 * the white space around it, in *val and *vlen; 1 found, 0 not (a
 * segment without '=', as an AAR's authserv-id, is passed over) */
int
arc_tag(
    const char *v, size_t n, const char *name, const char **val, size_t *vlen)
{
	const char *p = v, *end = v + n, *seg, *t, *e;
	size_t nl = strlen(name);

	while (p < end) {
		if ((seg = memchr(p, ';', (size_t)(end - p))) == NULL)
			seg = end;
		while (p < seg && ARC_WSP(*p))
			p++;
		for (t = p; t < seg && *t != '=' && !ARC_WSP(*t); t++)
			;
		e = t;
		while (e < seg && ARC_WSP(*e))
			e++;
		if (e < seg && *e == '=' && (size_t)(t - p) == nl &&
		    memcmp(p, name, nl) == 0) {
			for (e++; e < seg && ARC_WSP(*e); e++)
				;
			for (t = seg; t > e && ARC_WSP(t[-1]); t--)
				;
			*val = e;
			*vlen = (size_t)(t - e);
			return 1;
		}
		p = seg + 1;
	}
	return 0;
}

/* arc_tag_copy - tag name's value with its folding white space taken
 * out, NUL-terminated, into out; -1 when absent or longer than out */
int
arc_tag_copy(
    const char *v, size_t n, const char *name, char *out, size_t outlen)
{
	const char *val;
	size_t vlen, i, o = 0;

	if (!arc_tag(v, n, name, &val, &vlen))
		return -1;
	for (i = 0; i < vlen; i++) {
		if (ARC_WSP(val[i]))
			continue;
		if (o + 1 >= outlen)
			return -1;
		out[o++] = val[i];
	}
	out[o] = '\0';
	return 0;
}

/* arc_instance - the i= of an ARC field (len bytes, its name namelen of
 * them), 1 to ARC_INSTANCE_MAX + 1 (past the most a chain may have); -1
 * when absent or not a number in that range */
int
arc_instance(const char *field, size_t len, size_t namelen)
{
	char num[8];
	int i = 0;
	size_t k;

	if (namelen >= len ||
	    arc_tag_copy(field + namelen + 1, len - namelen - 1, "i", num,
		sizeof(num)) == -1 ||
	    num[0] == '\0' || num[0] == '0')
		return -1;
	for (k = 0; num[k] != '\0'; k++) {
		if (num[k] < '0' || num[k] > '9' || k >= 3)
			return -1;
		i = i * 10 + (num[k] - '0');
	}
	return i > ARC_INSTANCE_MAX + 1 ? -1 : i;
}

/* arc_strip_b - the field (len bytes) with its b= value left out, as
 * its signature hashes it, into out (len bytes at most); its length */
size_t
arc_strip_b(const char *field, size_t len, char *out)
{
	const char *colon = memchr(field, ':', len), *val;
	size_t vlen, pre;

	if (colon == NULL ||
	    !arc_tag(colon + 1, (size_t)(field + len - colon - 1), "b", &val,
		&vlen)) {
		memcpy(out, field, len);
		return len;
	}
	pre = (size_t)(val - field);
	memcpy(out, field, pre);
	memcpy(out + pre, val + vlen, len - pre - vlen);
	return len - vlen;
}

/* arc_cv_name - cv='s value */
const char *
arc_cv_name(enum arc_cv cv)
{
	return cv == ARC_CV_PASS ? "pass" : cv == ARC_CV_FAIL ? "fail" : "none";
}
