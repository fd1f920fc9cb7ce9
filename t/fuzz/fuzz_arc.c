/*
 * fuzz_arc - libFuzzer target: the ARC parsers over hostile header
 * text (lists/arc_tags.c, arc_ar.c, arc_chain.c).
 *
 * Any bytes as a post as it arrived: the trusted Authentication-Results
 * found is one of its fields and its results are NUL-terminated; every
 * field's tags, instance and b=-stripped form stay inside the field;
 * the chain's verdict is an instance of 1 to 51 and a cv, none exactly
 * for the first, sealed unless 50 sets are there; keys come from a fixed TXT
 * record, so signature checks run to the RSA verification.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lists.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_FIELDS 64

/* fuzz_txt - dmarc_txt_fn: one RSA key for every name, or none for
 * names starting with "x" */
static int
fuzz_txt(void *arg, const char *name, char *out, size_t outlen, unsigned *ttl,
    char *why, size_t whylen)
{
	(void)arg;
	(void)why;
	(void)whylen;
	*ttl = 60;
	if (name[0] == 'x')
		return 0;
	return strlcpy(out,
		   "v=DKIM1; k=rsa; "
		   "p="
		   "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDNSqimYYaIa2353O4bui2"
		   "P1N3Ygi5boSQzmj79ZYDNr0JipOUGtiENoRE9PD+"
		   "IQVrNr1cwXIoeKlZ1MUwIMmwlFhZw92xLlvJXoP4Qx3IRaLDjQF7iZaa72D"
		   "x/Kqyo06sBwHgq/wSMX5aWwZJvy5cpQEwNPNsNUDlSNzRZFtGWFwIDAQAB",
		   outlen) < outlen
		   ? 1
		   : -1;
}

/* fuzz_fields - each field's tags and stripped form inside it */
static void
fuzz_fields(const struct arc_verdict *v, const char *text, size_t size)
{
	struct dkim_field f[FUZZ_FIELDS];
	const char *body, *val;
	size_t nf, i, vlen, n;
	char *tmp, buf[64];

	if ((nf = dkim_canon_fields(text, size, f, FUZZ_FIELDS, &body)) >
	    FUZZ_FIELDS)
		nf = FUZZ_FIELDS;
	for (i = 0; i < nf; i++) {
		if (f[i].namelen >= f[i].len)
			continue;
		(void)arc_kind(f[i].p, f[i].namelen);
		(void)arc_ar_drop(v, text, f[i].p, f[i].len);
		n = (size_t)arc_instance(f[i].p, f[i].len, f[i].namelen);
		if (n != (size_t)-1 && (n < 1 || n > ARC_INSTANCE_MAX + 1))
			abort();
		if (arc_tag(f[i].p + f[i].namelen + 1,
			f[i].len - f[i].namelen - 1, "b", &val, &vlen) &&
		    (val < f[i].p || val + vlen > f[i].p + f[i].len))
			abort();
		if (arc_tag_copy(f[i].p + f[i].namelen + 1,
			f[i].len - f[i].namelen - 1, "d", buf,
			sizeof(buf)) == 0 &&
		    strlen(buf) >= sizeof(buf))
			abort();
		if ((tmp = malloc(f[i].len)) == NULL)
			abort();
		if (arc_strip_b(f[i].p, f[i].len, tmp) > f[i].len)
			abort();
		free(tmp);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct arc_verdict *v;

	if ((v = calloc(1, sizeof(*v))) == NULL)
		return 0;
	arc_ar_judge(v, "mx.example.org other.test", text, size);
	if (v->ar) {
		if (v->ar_off >= size ||
		    strncasecmp(
			text + v->ar_off, "authentication-results", 22) != 0 ||
		    memchr(v->results, '\0', sizeof(v->results)) == NULL)
			abort();
	}
	(void)arc_ar_says_fail(v);
	arc_chain_judge(v, text, size, fuzz_txt, NULL);
	if (v->instance < 1 || v->instance > ARC_INSTANCE_MAX + 1 ||
	    (v->cv != ARC_CV_NONE && v->cv != ARC_CV_PASS &&
		v->cv != ARC_CV_FAIL) ||
	    (v->cv == ARC_CV_NONE) != (v->instance == 1) ||
	    (v->instance > ARC_INSTANCE_MAX && v->seal) ||
	    memchr(v->why, '\0', sizeof(v->why)) == NULL)
		abort();
	fuzz_fields(v, text, size);
	free(v);
	return 0;
}
